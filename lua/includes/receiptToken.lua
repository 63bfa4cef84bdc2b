-- The write token a dispatch receipt carries (src/store/receipt.ts: its 8th ":"-separated field, after the job's
-- version; written only for a job whose last write sent one), or nil.
local function receiptToken(receipt)
  return string.match(receipt, '^[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:([^:]+)$')
end
