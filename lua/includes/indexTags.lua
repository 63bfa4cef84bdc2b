-- Add a job to (command 'ZADD') or take it out of (command 'ZREM') the shard's tag index, under each of its tags
-- ("\n"-separated, as recordTags gives them; '' does nothing): members "<tag>\n<id>", all scored 0, listed by tag
-- with ZRANGE BYLEX (src/store/tag-index.ts). At most 10 tags: one command.
local function indexTags(key, command, tags, id)
  if tags == '' then return end
  local args = {}
  for tag in string.gmatch(tags, '[^\n]+') do
    if command == 'ZADD' then args[#args + 1] = 0 end
    args[#args + 1] = tag .. '\n' .. id
  end
  redis.call(command, key, unpack(args))
end
