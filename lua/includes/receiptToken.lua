-- The write token digest a dispatch receipt carries (src/store/receipt.ts: the last 8 hex digits of its 7th
-- ":"-separated field, after the job's version; written only for a job whose last write sent a token), or nil.
local function receiptToken(receipt)
  return string.match(receipt, '^[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:[0-9a-z]+([0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f])$')
end
