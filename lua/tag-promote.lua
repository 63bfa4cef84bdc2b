--[[
  tag-promote: one bounded step of a run now by tag (src/store/tag-promote.ts): make the given jobs of one shard due
  now, as promote.lua does for one job ("now"), and name the next ones the tag index holds after them. Each job keeps
  its record (payload, creation time, version); only its score moves.

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] index     ZSET  bucket number -> earliest due time (ms) in that bucket
  KEYS[3] dead      ZSET  id -> time it died (ms)
  KEYS[4] tags      ZSET  the shard's tag index: "<tag>\n<id>" -> 0 (indexTags)
  KEYS[5..] buckets ZSETs the due buckets of the jobs in ARGV (each once)

  ARGV[1] tag       the tag
  ARGV[2] beforeMs  only jobs due before this (epoch ms, exclusive); "" for every one
  ARGV[3] next      how many ids after the last one given to name for the next step (0: none)
  ARGV[4] wake      the shard's wake channel: published to when a moved job is the shard's earliest
  ARGV[5..] jobs    groups of three: id, its bucket number, its bucket's index in KEYS (5 and on)

  Returns { promoted, inFlight, nextId... }: jobs made due now; jobs left because they are not in their bucket and not
  dead: a scanner holds them (being handed to SQS) or they wait for a dispatch retry, their dispatch under way (as
  promote.lua's 409); then up to `next` ids of the tag after the last one given (in the index's order). A job due
  already, dead (revive it instead), due at or after beforeMs, gone, or no longer with the tag counts in neither; an
  index entry left for a job that is gone or lost the tag is removed (as tag-cancel.lua does).
  Running a step again is harmless: a promoted job is due, and due jobs are not moved.
  Error codes: none.
  Helpers: nowMs, recordTags, reindexBucket, wakeIfEarliest
]]
local tag, before, next, wake = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local now = nowMs()
local promoted, inFlight, last = 0, 0, nil
local moved = {} -- key index -> bucket number, for the buckets a job moved in

for i = 5, #ARGV, 3 do
  local id, bucketNo, at = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  last = id
  local record = redis.call('HGET', KEYS[1], id)
  if not record or not string.find('\n' .. recordTags(record) .. '\n', '\n' .. tag .. '\n', 1, true) then
    redis.call('ZREM', KEYS[4], tag .. '\n' .. id)
  else
    local due = redis.call('ZSCORE', KEYS[at], id)
    if not due then
      if not redis.call('ZSCORE', KEYS[3], id) then inFlight = inFlight + 1 end
    elseif tonumber(due) > now and (not before or tonumber(due) < before) then
      redis.call('ZADD', KEYS[at], 'XX', now, id)
      moved[at] = bucketNo
      promoted = promoted + 1
    end
  end
end
for at, bucketNo in pairs(moved) do
  reindexBucket(KEYS[2], KEYS[at], bucketNo)
  wakeIfEarliest(KEYS[2], wake, bucketNo, now)
end

local out = { promoted, inFlight }
if next > 0 and last then
  -- Tags never hold a byte below "\v" (src/direct/tag-rules.ts): "<tag>\v" is past every "<tag>\n<id>".
  local ids = redis.call('ZRANGE', KEYS[4], '(' .. tag .. '\n' .. last, '(' .. tag .. '\v', 'BYLEX', 'LIMIT', 0, next)
  for j = 1, #ids do out[#out + 1] = string.sub(ids[j], #tag + 2) end
end
return out
