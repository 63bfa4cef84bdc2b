#!lua flags=allow-oom
--[[
  tag-cancel: one bounded step of a cancel by tag (src/store/tag-cancel.ts): cancel the given jobs of one shard, as
  cancel.lua cancels one, and name the next ones the tag index holds after them.

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] index     ZSET  bucket number -> earliest due time (ms) in that bucket
  KEYS[3] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[4] leases    HASH  id -> lease
  KEYS[5] errors    HASH  id -> last dispatch error
  KEYS[6] dead      ZSET  id -> time it died (ms)
  KEYS[7] counts    HASH  "<queue>|<state>" -> count
  KEYS[8] tags      ZSET  the shard's tag index: "<tag>\n<id>" -> 0 (indexTags)
  KEYS[9] schedules HASH  schedule id -> record (lua/schedule-put.lua): which occurrence each schedule has pending
  KEYS[10..] buckets ZSETs the due buckets of the jobs in ARGV (each once)

  ARGV[1] tag       the tag being cancelled
  ARGV[2] next      how many ids after the last one given to name for the next step (0: none)
  ARGV[3..] jobs    groups of three: id, its bucket number, its bucket's index in KEYS (10 and on)

  Returns { cancelled, inFlight, recurring, nextId... }: jobs removed (scheduled, waiting for a retry, or dead); jobs
  left because a scanner holds them (being handed to SQS) or a failed send of them may have reached SQS; pending
  occurrences of a recurring schedule, left in place (as cancel.lua refuses them: only an occurrence's ack creates the
  next one, so removing it would end the series without a word; the schedule is paused or deleted instead); then up to
  `next` ids of the tag after the last one given (in the index's order), for the next step. A job that is gone already (sent,
  or cancelled by another call) or no longer has the tag counts in neither, and an index entry left for it is removed.
  Runs when Redis is at maxmemory too (the allow-oom flag on the first line), as cancel.lua does.
  Error codes: none.
  Helpers: dropUnleased, recordTags, indexTags, occurrenceId, parseOccurrenceId, decodeSchedule
]]
local tag, next = ARGV[1], tonumber(ARGV[2])
local cancelled, inFlight, recurring, last = 0, 0, 0, nil

-- Whether `id` is the occurrence its schedule has pending (the one whose ack makes the next).
local function pendingOccurrence(id)
  local sid = parseOccurrenceId(id)
  local schedule = sid and redis.call('HGET', KEYS[9], sid)
  return schedule and occurrenceId(sid, select(2, decodeSchedule(schedule))) == id
end

for i = 3, #ARGV, 3 do
  local id, bucketNo = ARGV[i], ARGV[i + 1]
  last = id
  local record = redis.call('HGET', KEYS[1], id)
  -- An entry without its job, or whose job no longer has the tag (written by an engine before tags), is stale.
  if not record or not string.find('\n' .. recordTags(record) .. '\n', '\n' .. tag .. '\n', 1, true) then
    redis.call('ZREM', KEYS[8], tag .. '\n' .. id)
  elseif pendingOccurrence(id) then
    recurring = recurring + 1
  else
    local k = {
      jobs = KEYS[1], index = KEYS[2], bucket = KEYS[tonumber(ARGV[i + 2])], inflight = KEYS[3], leases = KEYS[4],
      errors = KEYS[5], dead = KEYS[6], counts = KEYS[7],
    }
    if dropUnleased(k, bucketNo, id) == 1 then
      indexTags(KEYS[8], 'ZREM', recordTags(record), id)
      cancelled = cancelled + 1
    else
      inFlight = inFlight + 1
    end
  end
end
local out = { cancelled, inFlight, recurring }
if next > 0 and last then
  -- Tags never hold a byte below "\v" (src/direct/tag-rules.ts): "<tag>\v" is past every "<tag>\n<id>".
  local ids = redis.call('ZRANGE', KEYS[8], '(' .. tag .. '\n' .. last, '(' .. tag .. '\v', 'BYLEX', 'LIMIT', 0, next)
  for j = 1, #ids do out[#out + 1] = string.sub(ids[j], #tag + 2) end
end
return out
