-- wrk script of grant-throughput.sh's load (what GrantLoad's "throughput" does, from a C client as pgbench is one):
-- run with as many threads as connections (wrk -tN -cN), so each thread is one client with one connection,
-- granting on machines of its own, one request at a time: client c takes machines
-- string.format(PATTERN, OFFSET + c * PER_CLIENT + k), every (repo, gpu) pair once, ?wait=0.
--   wrk -tN -cN -dS -s grant-load.lua URL -- PATTERN OFFSET PER_CLIENT REPOS GPUS
-- Prints GrantLoad's lines: grants_per_s (answers 201/202), p50_ms, p99_ms, statuses, failed. A client that
-- granted all its pairs asks again from the start (answered 200: counted, not as a grant).
local threads = {}

function setup(thread)
  thread:set("client", #threads)
  table.insert(threads, thread)
end

function init(args)
  pattern = args[1]
  offset = tonumber(args[2])
  per = tonumber(args[3])
  repos = tonumber(args[4])
  gpus = tonumber(args[5])
  n = 0
  statuses = {}
end

function request()
  local pairs_per_machine = repos * gpus
  local i = n % (per * pairs_per_machine)
  n = n + 1
  local machine = string.format(pattern, offset + client * per + math.floor(i / pairs_per_machine))
  local pair = i % pairs_per_machine
  local body = '{"machine":"' .. machine .. '","device":"nvidia.com/gpu=' .. (pair % gpus) .. '","exclusive":false}'
  return wrk.format("POST", "/api/v1/repos/repo-" .. math.floor(pair / gpus) .. "@" .. machine .. "/grants?wait=0",
    { ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local all, granted, failed = {}, 0, 0
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      all[status] = (all[status] or 0) + count
    end
  end
  local keys = {}
  for status, count in pairs(all) do
    table.insert(keys, status)
    if status == 201 or status == 202 then
      granted = granted + count
    elseif status ~= 200 then
      failed = failed + count
    end
  end
  table.sort(keys)
  local shown = {}
  for _, status in ipairs(keys) do
    table.insert(shown, status .. "=" .. all[status])
  end
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("grants_per_s %.3f\n", granted / (summary.duration / 1e6)))
  io.write(string.format("p50_ms %.3f\n", latency:percentile(50) / 1000))
  io.write(string.format("p99_ms %.3f\n", latency:percentile(99) / 1000))
  io.write("statuses {" .. table.concat(shown, ", ") .. "}\n")
  io.write(string.format("failed %d\n", failed + errors))
end
