-- Each receipt hash keepReceipt touched expires whole at expireAt (ms): a retention after its hour.
local function expireReceipts(touched, expireAt)
  for n in pairs(touched) do redis.call('PEXPIREAT', KEYS[n], expireAt) end
end
