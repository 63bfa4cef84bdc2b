--[[
  record-heads: the head of each record of a hash (jobs or schedules) without its payload, or with only its first
  bytes: what the operator tools read to count and list by queue (src/ops/), so payloads never cross the network.
  A record ends with its payload, after a fixed number of "\n"-ended header lines (src/store/record.ts: 4 for a
  job, src/store/schedule-record.ts: 6 for a schedule). Read-only and without a "#!lua" line: it also runs while
  Redis is full (maxmemory), when the dashboard matters most.

  KEYS[1] records  HASH  id -> record

  ARGV[1] headerLines   the "\n"-ended lines before the payload
  ARGV[2] previewBytes  how much of the payload to keep (0: none)
  ARGV[3] budgetBytes   bytes of records to read at most (their HSTRLEN, before reading them): a call's cost is bounded
                        whatever the payload sizes; the first record is always read, so every call makes progress
  ARGV[4..] ids

  Returns { head, payloadBytes, head, payloadBytes, ... } for the first ids, in order, as far as the budget goes
  (the caller asks again for the rest): head is the record up to its header and previewBytes of payload,
  payloadBytes the payload's whole length (a job's tags, on the lines after its payload, are not part of it). A missing record gives "" and -1; a record without its whole header
  (corrupt) is returned up to previewBytes + 1024 bytes, for the caller to refuse.
  Error codes: none.
  Helpers: none
]]
local records = KEYS[1]
local headerLines, previewBytes, budget = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])

local out, spent = {}, 0
for i = 4, #ARGV do
  local size = redis.call('HSTRLEN', records, ARGV[i])
  if i > 4 and spent + size > budget then break end
  spent = spent + size
  local record = size > 0 and redis.call('HGET', records, ARGV[i])
  if not record then
    out[#out + 1] = ''
    out[#out + 1] = -1
  else
    local at = 0
    for _ = 1, headerLines do
      at = at and string.find(record, '\n', at + 1, true)
    end
    if at then
      -- A job's tags follow its payload (encodeRecord): they are neither the payload nor counted in it.
      local stop = (string.find(record, '\n', at + 1, true) or (#record + 1)) - 1
      out[#out + 1] = string.sub(record, 1, math.min(at + previewBytes, stop))
      out[#out + 1] = stop - at
    else
      out[#out + 1] = string.sub(record, 1, previewBytes + 1024)
      out[#out + 1] = -1
    end
  end
end
return out
