"""What bench/accuracy.py and bench/cpu_vs_peer.py share: the project root
and a fingerprint of the build being measured."""
import datetime
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_stamp(gnnc):
    """Size and mtime of the gnnc binary and of the CPU runtime its generated code links
    (build/lib/libGnncRtCpu.a next to it): a rebuilt runtime changes the numbers."""
    out = {}
    rt = os.path.join(os.path.dirname(os.path.dirname(gnnc)), "lib", "libGnncRtCpu.a")
    for name, path in (("gnnc", gnnc), ("runtime", rt)):
        try:
            st = os.stat(os.path.join(ROOT, path))
            out[name] = {"path": path, "bytes": st.st_size,
                         "mtime": datetime.datetime.fromtimestamp(st.st_mtime).isoformat(timespec="seconds")}
        except OSError:
            out[name] = {"path": path, "missing": True}
    return out


def stamp_line(stamps):
    return "; ".join("%s %s" % (v["path"], "missing" if v.get("missing") else "modified " + v["mtime"])
                     for v in stamps.values())
