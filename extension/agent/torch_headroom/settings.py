"""Recording settings, as `headroom run` takes them and launch.json names them."""
import re

# The agent's settings (headroom_agent/config.py) by their names in launch.json (as `headroom run`
# writes them), with the environment variable and the values each takes (None: a positive number).
SETTINGS = {
    "stacks": ("HEADROOM_STACKS", ("python", "all")),
    "context": ("HEADROOM_CONTEXT", ("alloc", "all", "state")),
    "record": ("HEADROOM_RECORD", ("window", "full")),
    "modules": ("HEADROOM_MODULES", ("off", "on", "auto")),
    "maxEntries": ("HEADROOM_MAX_ENTRIES", None),
    "sampleMs": ("HEADROOM_SAMPLE_MS", None),
    "capGib": ("HEADROOM_CAP_GIB", None),
}


def check_settings(settings):
    """The settings, checked: a ValueError that names the setting and what it takes."""
    out = {}
    for key, value in settings.items():
        if value is None:
            continue
        if key == "allocConf":
            out[key] = parse_alloc_conf(value) if isinstance(value, str) else dict(value)
            continue
        if key not in SETTINGS:
            raise ValueError("unknown setting %r (known: %s, allocConf)" % (key, ", ".join(SETTINGS)))
        choices = SETTINGS[key][1]
        if choices is not None and value not in choices:
            raise ValueError("%s is %s, not %r" % (key, " or ".join(choices), value))
        if choices is None and not (isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0):
            raise ValueError("%s takes a positive number, not %r" % (key, value))
        out[key] = value
    return out


def parse_alloc_conf(text):
    """"k:v,k2=v2" into allocator knobs (as `headroom run --alloc-conf`)."""
    out = {}
    for part in [p.strip() for p in text.split(",") if p.strip()]:
        m = re.match(r"^([A-Za-z_]+)\s*[=:]\s*(.+)$", part)
        if not m:
            raise ValueError("allocator setting %r is not key:value" % part)
        out[m.group(1)] = m.group(2).strip()
    return out


def merge_alloc_conf(existing, knobs):
    """A knob given here replaces the same key of the user's setting; the user's others are kept."""
    entries = []
    for part in [p.strip() for p in (existing or "").split(",") if p.strip()]:
        k, _, v = part.partition(":")
        entries.append([k, v])
    for k, v in knobs.items():
        for e in entries:
            if e[0] == k:
                e[1] = v
                break
        else:
            entries.append([k, v])
    return ",".join("%s:%s" % (k, v) if v else k for k, v in entries)
