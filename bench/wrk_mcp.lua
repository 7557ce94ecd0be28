-- wrk script: MCP streamable HTTP tools/call POSTs (bench/06-http.sh).
-- env: WRK_BODY      the JSON-RPC request body; its "id":0 is replaced by a request id
--                    unique across threads (a session routes replies by id)
--      WRK_SESSIONS  a file with one Mcp-Session-Id per line; requests take them in turn
--      WRK_OUT       where done() writes one JSON line of results
-- A reply counts as an error when its status is not 200 or its body carries
-- "isError":true or a JSON-RPC "error".

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

function init(args)
  sessions = {}
  for line in io.lines(os.getenv("WRK_SESSIONS")) do
    if #line > 0 then table.insert(sessions, line) end
  end
  body = os.getenv("WRK_BODY")
  n = 0
  bad = 0
  sample = ""
end

function request()
  n = n + 1
  local sid = sessions[(n % #sessions) + 1]
  local b = string.gsub(body, '"id":0', '"id":' .. (tid * 100000000 + n), 1)
  return wrk.format("POST", nil, {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
    ["MCP-Protocol-Version"] = "2025-06-18",
    ["Mcp-Session-Id"] = sid,
  }, b)
end

function response(status, headers, resp)
  if status ~= 200 or string.find(resp, '"isError":true', 1, true)
     or string.find(resp, '"error":{', 1, true) then
    bad = bad + 1
    if sample == "" then sample = status .. " " .. string.sub(resp, 1, 200) end
  end
end

function done(summary, latency, requests)
  local bad_total, sample_any = 0, ""
  for _, t in ipairs(threads) do
    bad_total = bad_total + (t:get("bad") or 0)
    local s = t:get("sample") or ""
    if sample_any == "" then sample_any = s end
  end
  sample_any = string.gsub(sample_any, '[%c"\\]', " ")
  local f = io.open(os.getenv("WRK_OUT"), "w")
  f:write(string.format(
    '{"requests":%d,"duration_us":%d,"rps":%.2f,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,' ..
    '"mean_us":%.1f,"socket_errors":%d,"status_errors":%d,"bad_replies":%d,"bad_sample":"%s"}\n',
    summary.requests, summary.duration, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    latency.mean,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status, bad_total, sample_any))
  f:close()
end
