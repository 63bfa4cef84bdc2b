-- Keeps the dispatch receipt of an acknowledged job (src/store/receipt.ts) in the hash KEYS[n] (its hour's; n 0:
-- receipts are off), and notes the hash in `touched`: the caller then gives each touched hash its expiry once
-- (expireReceipts), since a burst's ack writes many receipts into each.
local function keepReceipt(n, id, receipt, touched)
  if n > 0 then
    redis.call('HSET', KEYS[n], id, receipt)
    touched[n] = true
  end
end
