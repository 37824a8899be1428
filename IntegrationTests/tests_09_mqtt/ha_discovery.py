#!/usr/bin/env python3
"""Checks MQTT discovery messages against what Home Assistant's documentation says each
platform takes (MQTT sensor and binary sensor: required and optional keys; the sensor device
classes with the units Home Assistant accepts for each, and the state classes it allows with
them; the binary sensor device classes). Reads the retained messages the case recorded (one
JSON object per line: topic, payload) and prints each problem; exits 1 when there is one.

    ha_discovery.py RETAINED.jsonl
"""
import json
import re
import sys

# Home Assistant's sensor device classes used here, with the units each accepts
# (homeassistant.components.sensor.const DEVICE_CLASS_UNITS, as documented for 2024 and later).
SENSOR_UNITS = {
    "power": {"mW", "W", "kW", "MW", "GW", "TW", "BTU/h"},
    "energy": {"J", "kJ", "MJ", "GJ", "mWh", "Wh", "kWh", "MWh", "GWh", "TWh", "cal", "kcal", "Mcal", "Gcal"},
    "battery": {"%"},
    "duration": {"d", "h", "min", "s", "ms", "µs"},
    "voltage": {"V", "mV", "µV", "kV", "MV"},
    "frequency": {"Hz", "kHz", "MHz", "GHz"},
    "temperature": {"°C", "°F", "K"},
}
# `monetary` takes an ISO 4217 currency code as its unit, and the state class `total` only.
CURRENCY = re.compile(r"^[A-Z]{3}$")
# Device classes whose state class may only be `total` or `total_increasing` (energy), and those
# for which `measurement` is allowed.
TOTAL_ONLY = {"energy"}
MEASUREMENT_OK = set(SENSOR_UNITS) - TOTAL_ONLY
BINARY_CLASSES = {"battery", "battery_charging", "carbon_monoxide", "cold", "connectivity", "door", "garage_door", "gas",
                  "heat", "light", "lock", "moisture", "motion", "moving", "occupancy", "opening", "plug", "power",
                  "presence", "problem", "running", "safety", "smoke", "sound", "tamper", "update", "vibration", "window"}
COMMON_KEYS = {"name", "unique_id", "object_id", "state_topic", "value_template", "json_attributes_topic",
               "json_attributes_template", "device_class", "icon", "availability", "availability_mode", "device", "origin",
               "availability_topic", "payload_available", "payload_not_available", "entity_category", "enabled_by_default",
               "expire_after", "force_update", "qos", "encoding"}
PLATFORM_KEYS = {
    "sensor": COMMON_KEYS | {"state_class", "unit_of_measurement", "suggested_display_precision", "last_reset_value_template"},
    "binary_sensor": COMMON_KEYS | {"payload_on", "payload_off", "off_delay"},
}
TOPIC = re.compile(r"^[^/]+/(sensor|binary_sensor)/([A-Za-z0-9_-]+)/([A-Za-z0-9_-]+)/config$")


def problems_of(topic, config):
    match = TOPIC.match(topic)
    if not match:
        return [f"{topic}: not <prefix>/<platform>/<node_id>/<object_id>/config with node and object ids of [A-Za-z0-9_-]"]
    platform = match.group(1)
    found = []
    unknown = set(config) - PLATFORM_KEYS[platform]
    if unknown:
        found.append(f"{topic}: keys {platform} does not take: {sorted(unknown)}")
    for key in ("state_topic", "unique_id", "device"):
        if key not in config:
            found.append(f"{topic}: no {key}")
    if "+" in config.get("state_topic", "") or "#" in config.get("state_topic", ""):
        found.append(f"{topic}: a wildcard in state_topic")
    device = config.get("device", {})
    if not device.get("identifiers"):
        found.append(f"{topic}: a device without identifiers")
    for availability in config.get("availability", []):
        if "topic" not in availability:
            found.append(f"{topic}: an availability without topic")
    if config.get("availability_mode", "latest") not in ("all", "any", "latest"):
        found.append(f"{topic}: availability_mode {config['availability_mode']}")
    device_class = config.get("device_class")
    if platform == "sensor":
        unit, state_class = config.get("unit_of_measurement"), config.get("state_class")
        if device_class in ("date", "timestamp"):
            # An ISO 8601 date or time: no unit, no state class.
            if unit is not None or state_class is not None:
                found.append(f"{topic}: {device_class} with unit {unit} or state class {state_class}; Home Assistant takes neither")
        elif device_class == "monetary":
            if not unit or not CURRENCY.match(unit):
                found.append(f"{topic}: monetary with unit {unit}, not an ISO 4217 code")
            if state_class not in (None, "total"):
                found.append(f"{topic}: monetary with state class {state_class}; Home Assistant takes total only")
        elif device_class is not None:
            if device_class not in SENSOR_UNITS:
                found.append(f"{topic}: device class {device_class} not checked here")
            elif unit not in SENSOR_UNITS[device_class]:
                found.append(f"{topic}: unit {unit} is not one {device_class} takes")
            if state_class == "measurement" and device_class not in MEASUREMENT_OK:
                found.append(f"{topic}: state class measurement with device class {device_class}")
            if device_class in TOTAL_ONLY and state_class not in ("total", "total_increasing"):
                found.append(f"{topic}: {device_class} needs state class total or total_increasing, has {state_class}")
        if state_class not in (None, "measurement", "total", "total_increasing"):
            found.append(f"{topic}: state class {state_class}")
    elif device_class is not None and device_class not in BINARY_CLASSES:
        found.append(f"{topic}: binary sensor device class {device_class}")
    return found


def main():
    problems, checked = [], 0
    unique = {}
    for line in open(sys.argv[1], encoding="utf-8"):
        message = json.loads(line)
        if not message["topic"].endswith("/config") or not message["payload"]:
            continue
        config = json.loads(message["payload"])
        checked += 1
        problems += problems_of(message["topic"], config)
        if config.get("unique_id") in unique:
            problems.append(f"{message['topic']}: unique_id also of {unique[config['unique_id']]}")
        unique[config.get("unique_id")] = message["topic"]
    if checked == 0:
        problems.append("no discovery message")
    print("\n".join(problems) if problems else f"{checked} discovery messages as Home Assistant's MQTT platforms take them")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
