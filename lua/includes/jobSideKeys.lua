-- The job side of a shard around one due bucket, from KEYS[first] on, by name: the table dropUnleased and
-- addOccurrence take. The same eight keys in the same order as jobSideKeys in src/store/scripts/job-side-keys.ts; a header
-- lists them as `KEYS[a..b] jobs, index, bucket, inflight, leases, errors, dead, counts`, and docs/internals.md
-- ("Keys of a shard") says what each holds.
local function jobSideKeys(first)
  return {
    jobs = KEYS[first], index = KEYS[first + 1], bucket = KEYS[first + 2], inflight = KEYS[first + 3],
    leases = KEYS[first + 4], errors = KEYS[first + 5], dead = KEYS[first + 6], counts = KEYS[first + 7],
  }
end
