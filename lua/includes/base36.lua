-- A non-negative integer in base 36 (a job record's creation time: src/store/record.ts).
local function base36(n)
  local digits, s = '0123456789abcdefghijklmnopqrstuvwxyz', ''
  repeat
    local d = n % 36
    s = string.sub(digits, d + 1, d + 1) .. s
    n = math.floor(n / 36)
  until n == 0
  return s
end
