-- The write token digest a dispatch receipt carries (src/store/receipt.ts: the last 8 hex digits of its 7th
-- ":"-separated field, after the job's version; written only for a job whose last write sent a token), or nil; and the
-- receipt's queue (its 5th field).
local function receiptToken(receipt)
  local queue, digest = string.match(receipt, '^[^:]*:[^:]*:[^:]*:[^:]*:([^:]*):[^:]*:[0-9a-z]+([0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f])$')
  return digest, queue
end
