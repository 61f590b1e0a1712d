-- redislimit's one script: a pace (GCRA) on the Redis server's clock, the
-- shared hold (blocked until) that a Retry-After sets for every process, and,
-- without a configured rate, the adaptive state that learns the rate for
-- every process at once. It runs atomically, so K processes that call it
-- are one client: one pace, one hold, one rate.
--
-- Times are microseconds on the server's clock (TIME), as Lua numbers:
-- exact up to 2^53 µs, about 285 years after 1970.
--
-- KEYS[1] the pace: the theoretical arrival time of the next turn, a string
-- KEYS[2] the hold: the end of the hold, a string that expires with it
-- KEYS[3] the adaptive state, a hash (unused with a configured rate)
-- ARGV[1] "take" (ask for a turn) or "refused" (a 429 was observed)
-- ARGV[2] the configured rate a second, or 0: the rate is learnt
-- ARGV[3] the keys' time to live, milliseconds
-- ARGV[4] accepted answers the caller saw since it last called (learnt rate)
-- ARGV[5] refused: the Retry-After still to run, µs (0: none)
-- ARGV[6] refused: when the attempt was sent, on the server's clock, µs
--         (0: unknown)
--
-- It returns {wait µs, now µs, why, rate in thousandths}: why is 0 when the
-- turn was taken (or for "refused"), 1 when the hold holds it, 2 when the
-- pace does; rate is 0 while the learnt rate is unpaced.

-- Redis before 5 replicates scripts verbatim and refuses a write after
-- TIME unless told to replicate their effects; later versions do that
-- always (and 7 made the call a no-op).
if redis.replicate_commands then pcall(redis.replicate_commands) end

local op = ARGV[1]
local fixed = tonumber(ARGV[2]) or 0
local ttl = tonumber(ARGV[3]) or 600000
local accepted = tonumber(ARGV[4]) or 0

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])

-- The pace's constants, as convo.FixedRate's: a turn may come up to four
-- intervals early, at most 25 ms, so that a timer that fires late (or a
-- round trip to Redis) is made up for.
local SLACK = 25000

-- The learnt rate's constants (see the package documentation).
local CUT = 0.85                -- a refusal cuts the rate to this share
local PLATEAU = math.log(0.95)  -- the regrowth rests at this share of the rate of the last refusal
local MIN_RATE, MAX_RATE = 0.001, 1e6 -- an interval of a µs at most: the clock's grain
local BUSY = 50000              -- a wait keeps the limit busy (its rate growing) this long
local MIN_REST, MAX_REST, FIRST_REST = 500000, 8000000, 3000000
local REST_ATTEMPTS = 20        -- the first regrowth lasts at least this many intervals
local GAIN, DOUBLE = 0.1, 250000 -- the probe grows at GAIN e-folds a second, twice as fast every DOUBLE
local SLOW_DOUBLE = 200000      -- slow start doubles the rate every this long of demand
local SLOW_FLOOR = 2            -- slow start begins at no less than this many a second
local MEASURE_MIN = 3           -- accepted answers that measure a rate,
local MEASURE_SPAN = 250000     -- over at least this long
local WINDOW = 1000000          -- the accepted answers' moving average spans about this long

-- Numbers are written as strings of our own: Lua's default conversion may
-- keep only 14 digits, and a time in µs has 16.
local function int(x) return string.format('%.0f', x) end
local function flt(x) return string.format('%.17g', x) end
local function num(v) return tonumber(v) or 0 end

local function wait_of(x) return math.max(1, math.ceil(x)) end

-- The pace at rate: take the turn and return 0, or return the wait.
local function pace(rate)
	local interval = 1000000 / rate
	local slack = math.min(4 * interval, SLACK)
	local tat = num(redis.call('GET', KEYS[1]))
	-- Never more than one interval ahead at the current rate: a rate that
	-- rose (a learnt rate, or a process configured anew) is obeyed at once.
	tat = math.min(math.max(tat, now - slack), now + interval)
	if tat > now then
		return wait_of(tat - now)
	end
	tat = tat + interval
	redis.call('SET', KEYS[1], flt(tat), 'PX', int(math.max(ttl, math.ceil((tat - now) / 1000) + 1000)))
	return 0
end

local function hold_left()
	local until_ = num(redis.call('GET', KEYS[2]))
	if until_ > now then return until_ - now end
	return 0
end

if fixed > 0 then
	if op == 'take' then
		local h = hold_left()
		if h > 0 then return {wait_of(h), now, 1, math.floor(fixed * 1000)} end
		local w = pace(fixed)
		local why = 0
		if w > 0 then why = 2 end
		return {w, now, why, math.floor(fixed * 1000)}
	end
end

-- The learnt rate's state. wmax is the rate at the last refusal (0: no
-- refusal yet, unpaced); r0 the rate right after it; the rate follows a
-- curve of grown, the time the limit was busy since then (attempts
-- waiting for their turn): concave up to a little under wmax, level, then
-- convex (the probe); or, in slow start, doubling. seen counts the
-- accepted answers since the last cut; acc is their moving average (before
-- the first refusal); mn counts them since mfrom, the start of the
-- measure: the last cut or the end of the last hold (hend, while one
-- runs), so that it spans no time when nothing could be sent.
local F = {'wmax', 'r0', 'slow', 'grown', 'tick', 'busy', 'rest', 'cut', 'seen', 'acc', 'acc_at', 'first',
	'mfrom', 'mn', 'hend'}
local s = {}
if fixed <= 0 then
	local vals = redis.call('HMGET', KEYS[3], unpack(F))
	for i, f in ipairs(F) do s[f] = num(vals[i]) end
	if s.first == 0 then
		s.first, s.tick, s.acc_at, s.mfrom = now, now, now, now
	end
	if s.hend > 0 and now >= s.hend then
		s.mfrom, s.mn, s.hend = s.hend, 0, 0
	end
	local dt = math.max(now - s.acc_at, 0)
	s.acc = s.acc * math.exp(-dt / WINDOW) + accepted
	s.acc_at = now
	s.seen = s.seen + accepted
	s.mn = s.mn + accepted
	-- The curve's clock moves only while the limit is busy: a limit that
	-- nobody pushes learns nothing about room above it.
	local from = s.tick
	s.tick = now
	if s.wmax > 0 then
		local e = math.min(now, s.busy)
		if e > from then s.grown = s.grown + (e - from) end
	end
end

local function save()
	local kv = {}
	for _, f in ipairs(F) do
		kv[#kv + 1] = f
		kv[#kv + 1] = flt(s[f])
	end
	redis.call('HSET', KEYS[3], unpack(kv))
	redis.call('PEXPIRE', KEYS[3], int(ttl))
end

-- The learnt rate; 0 before the first refusal (unpaced).
local function learnt()
	if s.wmax <= 0 then return 0 end
	local x
	local g = s.grown
	local x0 = math.log(s.r0 / s.wmax)
	if s.slow == 1 then
		x = x0 + math.log(2) * g / SLOW_DOUBLE
	else
		local k = s.rest
		if g <= k then
			if x0 >= PLATEAU then
				x = PLATEAU
			else
				local f = 1 - g / k
				x = PLATEAU + (x0 - PLATEAU) * f * f * f
			end
		elseif g <= 1.5 * k then
			x = PLATEAU
		else
			x = PLATEAU + GAIN * (DOUBLE / 1000000) / math.log(2) * (2 ^ ((g - 1.5 * k) / DOUBLE) - 1)
		end
	end
	x = math.min(x, math.log(MAX_RATE / s.wmax))
	return math.min(math.max(s.wmax * math.exp(x), MIN_RATE), MAX_RATE)
end

if op == 'take' then
	local rate = learnt()
	local h = hold_left()
	local w, why = 0, 0
	if h > 0 then
		w, why = wait_of(h), 1
	elseif rate > 0 then
		w = pace(rate)
		if w > 0 then
			why = 2
			s.busy = math.max(s.busy, now + math.max(BUSY, 2000000 / rate))
		end
	end
	save()
	return {w, now, why, math.floor(rate * 1000)}
end

-- What the service accepted a second over the measure, when it spans
-- long enough and no hold; nil otherwise.
local function measured()
	local span = now - s.mfrom
	if s.hend > 0 or span < MEASURE_SPAN or s.mn < MEASURE_MIN then return nil end
	return s.mn * 1000000 / span
end
local m
if fixed <= 0 then m = measured() end

-- A refusal. A Retry-After holds every process until it has passed.
local ra = tonumber(ARGV[5]) or 0
if ra > 0 then
	local until_ = math.max(num(redis.call('GET', KEYS[2])), now + ra)
	redis.call('SET', KEYS[2], int(until_), 'PX', int(math.max(1, math.ceil((until_ - now) / 1000))))
	-- The pace resumes at the hold's end, evenly: turns it did not give
	-- during the hold are not made up for in a burst, which a sliding
	-- window at the rate would refuse, and hold everyone again.
	local tat = num(redis.call('GET', KEYS[1]))
	if tat < until_ then
		redis.call('SET', KEYS[1], flt(until_), 'PX', int(math.max(ttl, math.ceil((until_ - now) / 1000) + 1000)))
	end
	if fixed <= 0 then s.hend = until_ end
end
if fixed > 0 then
	return {0, now, 0, math.floor(fixed * 1000)}
end

-- The learnt rate falls: a cut, once per overshoot.
local function cut(r0, wmax)
	s.r0, s.wmax = math.max(r0, MIN_RATE), math.max(wmax, r0, MIN_RATE)
	s.grown, s.cut, s.seen = 0, now, 0
	if s.hend == 0 then s.mfrom, s.mn = now, 0 end
	if s.rest == 0 then
		s.rest = math.min(math.max(MIN_REST, REST_ATTEMPTS / s.r0 * 1000000), FIRST_REST)
	end
	-- The service has no room right now: the next turn is one interval away.
	local next_ = now + 1000000 / s.r0
	local tat = num(redis.call('GET', KEYS[1]))
	if tat < next_ then
		redis.call('SET', KEYS[1], flt(next_), 'PX', int(math.max(ttl, math.ceil((next_ - now) / 1000) + 1000)))
	end
end

local sent = tonumber(ARGV[6]) or 0
local rate = learnt()
if rate == 0 then
	-- The first refusal. A limit used for a second or more starts from
	-- what the service accepted over about the last second; a young one
	-- learnt only its share of the service's burst, which is chance: it
	-- finds its rate by slow start.
	if s.acc >= MEASURE_MIN and now - s.first >= 1000000 then
		s.slow = 0
		cut(CUT * s.acc, s.acc)
	else
		s.slow = 1
		local r0 = math.max(CUT * s.acc, SLOW_FLOOR)
		cut(r0, r0)
	end
elseif sent > 0 and sent < s.cut + 2000000 / rate then
	-- Sent before the last cut, or within two intervals after it: the
	-- service still answers the overshoot that cut was for.
elseif s.seen == 0 then
	-- Nothing was accepted since the last cut: the service refuses
	-- whatever comes (it is down, or someone else spends the budget). The
	-- hold paces that; a storm teaches no rate.
elseif s.slow == 1 then
	-- The end of a slow start: the limit was passed within the last
	-- doubling, or the service's burst hid it for one more.
	s.slow = 0
	local base = math.min(rate, math.max(rate / 2, m or 0))
	cut(CUT * base, base)
else
	if rate >= 1.5 * s.wmax then
		s.rest = math.max(s.rest / 2, MIN_REST) -- it grew into room that was free: probe sooner
	elseif rate >= 0.98 * s.wmax then
		s.rest = math.min(s.rest * 1.5, MAX_REST) -- it is at the limit: probe more rarely
	end
	-- The service took far less than the pace over the measure: that is
	-- its room now (the limit fell, someone else takes a share, or the
	-- pace outran it since the last refusal).
	local base = rate
	if m and m < CUT * rate then base = m end
	local wmax = base
	if base < 0.9 * s.wmax then
		wmax = base * (1 + CUT) / 2 -- still falling: aim lower than where it was refused
	end
	cut(CUT * base, wmax)
end
save()
return {0, now, 0, math.floor(learnt() * 1000)}
