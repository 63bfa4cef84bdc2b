--[[
  relay-hand-back: a scan run that ends early (on-demand mode, nothing due soon) gives the relay key back to the run
  it took over from, so an older run still scanning does not stop for a run that is gone (src/scan/run/relay.ts).

  KEYS[1] relay  STRING  the name of the newest scan run (with an expiry)

  ARGV[1] owner        this run's name: only it is given back (a newer run's name stays)
  ARGV[2] predecessor  the name this run's write replaced, "" for none (the key is then deleted)

  Returns 1 when the key held this run's name and was given back, else 0.
  Error codes: none.
  Helpers: none
]]
local relay = KEYS[1]
local owner, predecessor = ARGV[1], ARGV[2]

if redis.call('GET', relay) ~= owner then return 0 end
if predecessor == '' then
  redis.call('DEL', relay)
else
  redis.call('SET', relay, predecessor, 'KEEPTTL')
end
return 1
