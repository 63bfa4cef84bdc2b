-- Flow control's pace in a claim (src/flow/flow-pace.ts): a rate-limited name's due jobs beyond what its rate lets go
-- now stay out of the claim's reply. They are held in the same call, as lua/flow-hold.lua holds them, until the time
-- a token bucket of this shard alone (the key's rate and burst on one shard, its share with several, the key's rate
-- over the shard's jobs for its first few over it; kept in the shard's flowPace hash) gives them. The name's own
-- bucket (lua/flow-take.lua) counts every shard's jobs: the job asks it when it comes back, and it holds the job
-- further if need be (on one shard it never has to: the two buckets count the same jobs). A burst of one key then
-- costs its claims a record read and two writes a job, not a reply, a bucket call and a hold each, and the jobs of
-- other keys due after it are claimed that much sooner.
-- FIFO queues' jobs are not paced here: the scanner's gate keeps their groups in order (src/flow/flow-gate.ts).
--
-- spec: "<name>\t<rate>\t<burst>\t<cell ms>\t<key rate>\n" per rate name: this shard's rate, burst and grid (cell: the
-- grid held jobs come back on, 0 for none), and the name's own rate (the same with one shard).
-- Returns nil for '' (no rate set: the claim does nothing more), else a pace with
--   holdUntil(record, due)  the time to hold the job until (Redis ms, > now), or nil to lease it as usual
--   finish()                writes the shard's buckets back; returns "<name>\t<count>\t<latest hold - due>\n" each
local function flowPace(spec, paceKey, now)
  if spec == '' then return nil end
  local paces = {}
  -- Where this shard's grid starts within a cell (a fraction, from the shard's own key): with several shards each pacing
  -- its part of a key, their groups come back in turn, not all at each cell's end.
  local phase = (tonumber(string.sub(redis.sha1hex(paceKey), 1, 6), 16) % 1000) / 1000
  -- A shard's first jobs over the name's own rate come back at that rate over them alone, this many at most: a key's
  -- few jobs that fell on one shard, or a stream under its rate, would otherwise wait S / 1.08 times the rate's
  -- interval each (the share assumes every shard holds as many). Past them the shard holds a backlog, paced at its share.
  local SHARD_ALONE = 10
  local line = '([^\t\n]+)\t([^\t\n]+)\t([^\t\n]+)\t([^\t\n]+)\t([^\t\n]+)\n?'
  for name, rate, burst, cell, keyRate in string.gmatch(spec, line) do
    local interval, keyInterval = 1000 / tonumber(rate), 1000 / tonumber(keyRate)
    paces[name] = { interval = interval, tolerance = (tonumber(burst) - 1) * interval, cell = tonumber(cell),
      keyInterval = keyInterval, keyTolerance = (tonumber(burst) - 1) * keyInterval,
      keyCell = tonumber(cell) * keyInterval / interval, rate = rate .. '/' .. burst .. '/' .. keyRate,
      count = 0, late = 0 }
  end

  -- The rate name a record falls under (its flow key's, else its queue's: flow-gate.ts verdictOf), nil for none or
  -- a FIFO queue. Reads the record's first four lines only (encodeRecord: the group line holds the key after a space).
  local function nameOf(record)
    local q = string.find(record, '\n', 1, true)
    if not q then return nil end
    local queue = string.sub(record, 1, q - 1)
    if string.sub(queue, -5) == '.fifo' then return nil end
    local a = string.find(record, '\n', q + 1, true)
    local b = a and string.find(record, '\n', a + 1, true)
    local c = b and string.find(record, '\n', b + 1, true)
    if c then
      local space = string.find(record, ' ', b + 1, true)
      if space and space < c then
        local name = 'k:' .. string.sub(record, space + 1, c - 1)
        if paces[name] then return name end
      end
    end
    local name = 'q:' .. queue
    if paces[name] then return name end
    return nil
  end

  local pace = {}
  function pace.holdUntil(record, due)
    local name = nameOf(record)
    if not name then return nil end
    local p = paces[name]
    -- Two GCRA buckets, as flow-take.lua, over this shard's jobs of the name: at its share of the rate (tat), and at
    -- the name's own rate (keyTat), which gives a job no later time than the name's bucket does (that one counts these
    -- jobs and others), but for the name's burst beyond this shard's share of it. Read once per claim, written back by finish(), kept with the rate they ran at ("<tat> <keyTat>
    -- <rate>/<burst>/<key rate>"): a job that asks after a rate change is paced by the new rate from now, not held
    -- behind the debt the old one ran up (the name's bucket counts only the jobs that asked it, and lets such a job go).
    if not p.tat then
      local tat, keyTat, rate = string.match(redis.call('HGET', paceKey, name) or '', '^(%S+) (%S+) (%S+)$')
      local same = rate == p.rate
      p.tat = math.max(same and tonumber(tat) or now, now)
      p.keyTat = math.max(same and tonumber(keyTat) or now, now)
    end
    local at = math.max(now, p.tat - p.tolerance)
    p.tat = math.max(p.tat, at) + p.interval
    local keyAt = math.max(now, p.keyTat - p.keyTolerance)
    p.keyTat = math.max(p.keyTat, keyAt) + p.keyInterval
    if keyAt <= now then return nil end
    local cell = p.cell
    if keyAt - now <= SHARD_ALONE * p.keyInterval then
      at, cell = keyAt, p.keyCell
    else
      at = math.max(at, keyAt)
    end
    -- Held jobs come back together, on the grid flow-gate.ts groupedTime uses (per shard as many to a cell as the key).
    if cell > 0 then
      local offset = phase * cell
      at = math.ceil((at - offset) / cell) * cell + offset
    end
    at = math.ceil(at)
    p.count = p.count + 1
    p.late = math.max(p.late, at - tonumber(due))
    return at
  end

  function pace.finish()
    local latest, report = nil, {}
    for name, p in pairs(paces) do
      if p.tat then
        redis.call('HSET', paceKey, name, string.format('%.3f %.3f ', p.tat, p.keyTat) .. p.rate)
        latest = math.max(latest or now, p.tat, p.keyTat)
      end
      if p.count > 0 then report[#report + 1] = name .. '\t' .. p.count .. '\t' .. string.format('%d', p.late) .. '\n' end
    end
    -- Kept while a name holds a debt, then let expire: an idle shard keeps nothing. Never shortened by a claim that
    -- paced other names: a name's jobs held further out (its rate since removed, too) keep their pace state.
    if latest then
      local ttl = math.max(math.ceil(latest - now + 60000), redis.call('PTTL', paceKey))
      redis.call('PEXPIRE', paceKey, ttl)
    end
    return table.concat(report)
  end

  return pace
end
