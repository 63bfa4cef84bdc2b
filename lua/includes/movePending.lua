-- A job leaves its queue's pending count for another state ("dispatched" | "dead"); the queue is read from its record.
local function movePending(counts, record, state)
  local queue = queueOf(record)
  countBy(counts, queue, 'pending', -1)
  countBy(counts, queue, state, 1)
end
