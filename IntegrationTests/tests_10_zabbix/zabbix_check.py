#!/usr/bin/env python3
"""Zabbix's JSON-RPC API (api_jsonrpc.php, Zabbix 6.0) for the tests_10_zabbix cases:

  zabbix_check.py import FILE...                     configuration.import of each template
  zabbix_check.py http-host NAME URL [MACRO=VALUE...] a host linked to "wpexporter by HTTP"
  zabbix_check.py snmp-host NAME PORT MACRO=VALUE... a host with an SNMP interface on 127.0.0.1:PORT
                                                     linked to "UPS-MIB by SNMP" (v2c, or v3 with
                                                     SNMPV3=1: the interface takes the template's macros)
  zabbix_check.py values SECONDS HOST=SOURCE...      waits until every item of each host was polled
                                                     after discovery, then compares each value with
                                                     what SOURCE (a /metrics URL, or snmp:PORT:ARGS
                                                     for snmpbulkwalk) served meanwhile
  zabbix_check.py problems HOST [SINCE]              the host's problem events since SINCE, as JSON lines

The API is at http://127.0.0.1:8080 (ZABBIX_API), user Admin/zabbix. Secret macros are sent and never
printed. Exits 1 with the reason on the first failure.
"""
import json, os, re, subprocess, sys, threading, time, urllib.request

API = os.environ.get("ZABBIX_API", "http://127.0.0.1:8080/api_jsonrpc.php")
HTTP_TEMPLATE, SNMP_TEMPLATE = "wpexporter by HTTP", "UPS-MIB by SNMP"
_auth = None


def fail(message):
    print(f"zabbix_check: {message}", file=sys.stderr)
    sys.exit(1)


def call(method, params):
    global _auth
    if _auth is None and method != "user.login":
        _auth = call("user.login", {"user": "Admin", "password": "zabbix"})
    body = {"jsonrpc": "2.0", "method": method, "params": params, "id": 1}
    if method != "user.login":
        body["auth"] = _auth
    request = urllib.request.Request(API, json.dumps(body).encode(), {"Content-Type": "application/json-rpc"})
    answer = json.load(urllib.request.urlopen(request, timeout=120))
    if "error" in answer:
        fail(f"{method}: {answer['error'].get('data') or answer['error']}")
    return answer["result"]


def group():
    found = call("hostgroup.get", {"filter": {"name": ["wpexporter check"]}})
    return found[0]["groupid"] if found else call("hostgroup.create", {"name": "wpexporter check"})["groupids"][0]


def template(name):
    found = call("template.get", {"filter": {"host": [name]}})
    if not found:
        fail(f"no template {name!r} after the import")
    return found[0]["templateid"]


def macros(pairs, secret=()):
    result = []
    for pair in pairs:
        name, value = pair.split("=", 1)
        entry = {"macro": "{$" + name + "}", "value": value}
        if name in secret:
            entry["type"] = 1   # secret text
        result.append(entry)
    return result


def import_templates(files):
    rules = {key: {"createMissing": True, "updateExisting": True} for key in
             ("templates", "items", "triggers", "discoveryRules", "valueMaps", "templateLinkage")}
    rules["groups"] = {"createMissing": True}
    rules["templateLinkage"] = {"createMissing": True}
    for key in ("items", "triggers", "discoveryRules", "valueMaps"):
        rules[key]["deleteMissing"] = True
    for path in files:
        source = open(path, encoding="utf-8").read()
        if call("configuration.import", {"format": "yaml", "source": source, "rules": rules}) is not True:
            fail(f"{path}: configuration.import did not return true")
        print(f"imported {path}")


def http_host(name, url, pairs):
    call("host.create", {"host": name, "groups": [{"groupid": group()}], "templates": [{"templateid": template(HTTP_TEMPLATE)}],
                         "macros": [{"macro": "{$WPX.URL}", "value": url}] + macros(pairs, secret={"WPX.PASSWORD"})})
    print(f"host {name}: {HTTP_TEMPLATE}, {url}")


def snmp_host(name, port, pairs):
    v3 = "SNMPV3=1" in pairs
    pairs = [pair for pair in pairs if pair != "SNMPV3=1"]
    details = {"version": 3, "bulk": 1, "securityname": "{$UPS.SNMPV3.USER}", "contextname": "{$UPS.SNMPV3.CONTEXT}",
               "securitylevel": 2, "authprotocol": 3, "authpassphrase": "{$UPS.SNMPV3.AUTHPASS}",   # authPriv, SHA-256, AES-128
               "privprotocol": 1, "privpassphrase": "{$UPS.SNMPV3.PRIVPASS}"} if v3 else \
        {"version": 2, "bulk": 1, "community": "{$SNMP_COMMUNITY}"}
    call("host.create", {
        "host": name, "groups": [{"groupid": group()}], "templates": [{"templateid": template(SNMP_TEMPLATE)}],
        "interfaces": [{"type": 2, "main": 1, "useip": 1, "ip": "127.0.0.1", "dns": "", "port": port, "details": details}],
        "macros": macros(pairs, secret={"SNMP_COMMUNITY", "UPS.SNMPV3.AUTHPASS", "UPS.SNMPV3.PRIVPASS"})})
    print(f"host {name}: {SNMP_TEMPLATE}, SNMP{'v3' if v3 else 'v2c'} on 127.0.0.1:{port}")


# --- Values ------------------------------------------------------------------------------------

SERIES = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def scrape(url):
    """{(family, frozenset(labels)): value text} of one read of /metrics."""
    series = {}
    for line in urllib.request.urlopen(url, timeout=10).read().decode("utf-8").splitlines():
        match = SERIES.match(line)
        if match and not line.startswith("#"):
            labels = frozenset((name, re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), value))
                               for name, value in LABEL.findall(match.group(2) or ""))
            series[(match.group(1), labels)] = match.group(3)
    return series


def walk(source):
    """{OID: value text} of the UPS-MIB as SOURCE (snmp:PORT:ARGS) serves it now."""
    _, port, args = source.split(":", 2)
    out = subprocess.run(["snmpbulkwalk", "-On", "-Oe", "-OQ", "-t", "2", "-r", "1"] + args.split() +
                         [f"127.0.0.1:{port}", "1.3.6.1.2.1.33"], capture_output=True, text=True)
    values = {}
    for line in out.stdout.splitlines():
        oid, _, value = line.partition(" = ")
        if oid.startswith(".") and "No Such" not in value:
            values[oid.lstrip(".")] = value.strip('"')
    return values


class Recorder(threading.Thread):
    """Every value each series of /metrics (or each UPS-MIB instance) took while the check ran,
    read every 0.2 s: Zabbix's last value must be one of them, whatever collection it was polled in."""

    def __init__(self, source):
        super().__init__(daemon=True)
        self.source, self.seen, self.lock, self.stop = source, {}, threading.Lock(), False

    def run(self):
        while not self.stop:
            try:
                current = scrape(self.source) if self.source.startswith("http") else walk(self.source)
            except OSError:
                current = {}
            with self.lock:
                for key, value in current.items():
                    self.seen.setdefault(key, set()).add(value)
            time.sleep(0.2)

    def oid(self, oid):
        with self.lock:
            return set(self.seen.get(oid, ()))

    def values(self, family, labels):
        """The values of the series of FAMILY whose labels include LABELS."""
        with self.lock:
            return [values for (name, series), values in self.seen.items() if name == family and labels <= series]


# Series whose value moves with every read of /metrics, not with a collection: the exporter's own
# resident memory grows while it serves (the recorder's reads and Zabbix's are different requests).
# Zabbix's value must lie within what the recorder saw, give or take a tenth.
EVERY_READ = {"process_resident_memory_bytes"}


def within_seen(zabbix, seen):
    try:
        value, numbers = float(zabbix), [float(v) for v in seen]
    except ValueError:
        return False
    return bool(numbers) and min(numbers) * 0.9 <= value <= max(numbers) * 1.1


def same(zabbix, exported, value_type):
    if value_type in ("1", "2", "4"):   # character, log, text
        return zabbix == exported
    try:
        a, b = float(zabbix), float(exported)
    except ValueError:
        return False
    if value_type == "3":   # unsigned: Zabbix stores the integer part
        return int(a) == int(b)
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def expected_http(item, recorder):
    """What /metrics says for a discovered item of the HTTP template: (values seen, description)."""
    step = item["preprocessing"][0]
    params = step["params"].split("\n")
    if step["type"] == "22":   # Prometheus pattern: family{device_id="…",label="value"}
        match = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?$', params[0])
        labels = frozenset((name, re.sub(r'\\(.)', r'\1', value)) for name, value in LABEL.findall(match.group(2) or ""))
        families = recorder.values(match.group(1), labels)
        if len(families) > 1:
            fail(f"{item['key_']}: its pattern {params[0]} selects {len(families)} series")
        values = families[0] if families else set()
        if params[1] == "label":
            with recorder.lock:
                values = {dict(series)[params[2]] for (name, series) in recorder.seen
                          if name == match.group(1) and labels <= series}
        return values, params[0]
    if step["type"] == "23":   # Prometheus to JSON, then the server's row (SERVER_JS)
        server = re.search(r"server = '((?:[^'\\]|\\.)*)'", item["preprocessing"][1]["params"]).group(1)
        with recorder.lock:
            values = set()
            for (name, series), seen in recorder.seen.items():
                if name == params[0] and dict(series).get("server", "") == server:
                    values |= seen
        return values, f"{params[0]} of server {server or '(none)'}"
    fail(f"{item['key_']}: unexpected first step {step['type']}")


def check_values(seconds, pairs):
    deadline = time.time() + seconds
    hosts = dict(pair.split("=", 1) for pair in pairs)
    recorders = {source: Recorder(source) for source in set(hosts.values())}
    for recorder in recorders.values():
        recorder.start()
    hostids = {host["host"]: host["hostid"] for host in call("host.get", {"filter": {"host": list(hosts)}})}
    missing = set(hosts) - set(hostids)
    if missing:
        fail(f"no host {sorted(missing)}")

    def items_of(host):
        return call("item.get", {"hostids": hostids[host], "output": ["itemid", "key_", "name", "lastvalue", "lastclock",
                                                                      "state", "error", "value_type", "type", "snmp_oid", "flags"],
                                 "selectPreprocessing": ["type", "params"], "webitems": False})

    # Discovery done (every rule ran once without error) and every item either polled or unsupported.
    while True:
        pending = []
        for host in hosts:
            rules = call("discoveryrule.get", {"hostids": hostids[host], "output": ["key_", "state", "error"],
                                               "selectItems": "count"})
            for rule in rules:
                if rule["state"] == "1":
                    fail(f"{host}: discovery {rule['key_']}: {rule['error']}")
            discovered = [item for item in items_of(host) if item["flags"] == "4"]
            if not discovered:
                pending.append(f"{host}: nothing discovered yet")
                continue
            waiting = [item["key_"] for item in discovered if item["lastclock"] == "0" and item["state"] == "0"]
            if waiting:
                pending.append(f"{host}: {len(waiting)} items not polled yet (e.g. {waiting[0]})")
        if not pending:
            break
        if time.time() > deadline:
            fail("not every discovered item was polled within the deadline: " + "; ".join(pending))
        time.sleep(1)

    # Values against the source, as recorded since the start.
    problems, counts = [], {}
    for host, source in hosts.items():
        items = [item for item in items_of(host) if item["type"] != "19"]   # not the HTTP master item
        discovered = [item for item in items if item["flags"] == "4"]
        checked = unsupported = 0
        for item in items:
            if source.startswith("http"):
                values, what = expected_http(item, recorders[source])
            else:
                oid = item["snmp_oid"]
                if not oid or oid.startswith("discovery["):
                    continue
                values, what = recorders[source].oid(oid), oid
                multiplier = [step["params"] for step in item["preprocessing"] if step["type"] == "1"]
                if multiplier:
                    values = {repr(float(value) * float(multiplier[0])) for value in values}
                # Zabbix shows an OBJECT IDENTIFIER value as net-snmp's default output does.
                values |= {re.sub(r"^\.?1\.3\.6\.1\.", "iso.3.6.1.", value) for value in values}
            if item["state"] == "1":
                if values:
                    problems.append(f"{host}: {item['key_']} is unsupported ({item['error'][:200]}) while {what} has {sorted(values)}")
                unsupported += 1
                continue
            if item["lastclock"] == "0":
                continue
            if what in EVERY_READ:
                matches = within_seen(item["lastvalue"], values)
            else:
                matches = any(same(item["lastvalue"], value, item["value_type"]) for value in values)
            if not matches:
                problems.append(f"{host}: {item['key_']} = {item['lastvalue']!r}, {what} took {sorted(values)[:5]}")
            checked += 1
        counts[host] = (len(discovered), checked, unsupported)
    for recorder in recorders.values():
        recorder.stop = True
    for host, (discovered, checked, unsupported) in counts.items():
        # The source's kind only: an SNMP source holds the community or SNMPv3 passphrases.
        kind = "/metrics" if hosts[host].startswith("http") else "snmpbulkwalk"
        print(f"{host}: {discovered} items discovered; {checked} values equal to {kind}'s, "
              f"{unsupported} unsupported where it has no such series")
    if problems:
        fail("values differ:\n  " + "\n  ".join(problems[:40]))


def problems(host, since):
    hostid = call("host.get", {"filter": {"host": [host]}})
    if not hostid:
        fail(f"no host {host}")
    events = call("event.get", {"hostids": hostid[0]["hostid"], "source": 0, "object": 0, "value": 1,
                                "time_from": int(since), "output": ["eventid", "name", "clock", "r_eventid", "severity"],
                                "sortfield": ["clock"]})
    for event in events:
        print(json.dumps({"name": event["name"], "clock": int(event["clock"]), "resolved": event["r_eventid"] != "0",
                          "severity": int(event["severity"])}, ensure_ascii=False))


def main():
    if len(sys.argv) < 2:
        fail("usage: zabbix_check.py import|http-host|snmp-host|values|problems ...")
    command, args = sys.argv[1], sys.argv[2:]
    if command == "import" and args:
        import_templates(args)
    elif command == "http-host" and len(args) >= 2:
        http_host(args[0], args[1], args[2:])
    elif command == "snmp-host" and len(args) >= 2:
        snmp_host(args[0], args[1], args[2:])
    elif command == "values" and len(args) >= 2:
        check_values(float(args[0]), args[1:])
    elif command == "problems" and args:
        problems(args[0], args[1] if len(args) > 1 else 0)
    else:
        fail(f"bad arguments for {command}: {args}")


main()
