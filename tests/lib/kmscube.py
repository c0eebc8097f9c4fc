"""Debian's kmscube with Mesa's software rasterizer (GBM on kmsvt's dumb
buffers) in a guest: what its image needs."""
import glob
import shutil

from harness import check

MESA = "/usr/lib/x86_64-linux-gnu"


def kmscube_image():
    exe = shutil.which("kmscube")
    check(exe, "kmscube missing: run make deps")
    libs = [MESA + "/libEGL_mesa.so.0", MESA + "/dri/kms_swrast_dri.so",
            MESA + "/dri/swrast_dri.so"] + glob.glob(MESA + "/libgbm.so.1")
    for lib in libs:
        check(glob.glob(lib), "%s missing: run make deps (Mesa)" % lib)
    vendor = "/usr/share/glvnd/egl_vendor.d/50_mesa.json"
    return dict(programs=[exe], libraries=libs, extra_files={vendor: vendor}, tag="kmscube")
