"""Guest test: Debian's kmscube renders on kmsvt with Mesa's software
rasterizer (GBM on kmsvt dumb buffers, page flips)."""
import time

from harness import check
from kmscube import kmscube_image


def test_kmscube_renders(ctx):
    g = ctx.guest("kmscube", mem=1024, **kmscube_image())
    # kmscube quits as soon as its stdin is readable: feed it a pipe that never writes.
    g.sh("sleep 1000 | kmscube >/tmp/cube.log 2>&1 &")
    deadline = time.monotonic() + 90
    shots = []
    while time.monotonic() < deadline:
        img = g.screendump()
        if not img.is_black() and img.distinct_colors() > 20:
            shots.append(img)
            if len(shots) >= 2 and shots[-1].pixels != shots[-2].pixels:
                break
        time.sleep(1)
    log = g.sh("cat /tmp/cube.log")[1]
    check(len(shots) >= 2, "kmscube never drew a cube: %s" % log[-1500:])
    check(shots[-1].pixels != shots[-2].pixels, "cube does not turn: %s" % log[-1500:])
    check("failed to set mode" not in log, "kmscube: %s" % log[-1500:])
    _, alive = g.sh("pidof kmscube")
    check(alive.strip(), "kmscube died: %s" % log[-1500:])
    shots[-1].save_ppm(g.log_path.replace(".serial.log", "-cube.ppm"))
    g.sh("killall kmscube")
    g.assert_no_oops()
