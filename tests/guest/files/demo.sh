#!/bin/sh
# The demo's sessions (make run): Debian's seatd, alice on VT2 and bob on
# VT3 through libseat, the console on tty1, and what to try printed there.
modprobe evdev	# the sessions read the keyboard (Ctrl+Alt+Fn) through the seat
seatd -l error >/tmp/seatd.log 2>&1 &
n=0
while [ ! -S /run/seatd.sock ] && [ $n -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
for s in 2:alice 3:bob; do
	vt=${s%%:*}
	name=${s#*:}
	kmsvt-switch "$vt" >/dev/null
	LIBSEAT_BACKEND=seatd kmsvt-session --name "$name" </dev/tty"$vt" >/tmp/"$name".log 2>&1 &
	n=0
	while [ ! -e /run/kmsvt-session/"$name" ] && [ $n -lt 100 ]; do sleep 0.2; n=$((n + 1)); done
done
kmsvt-switch 1 >/dev/null
cat >/dev/tty1 <<'TEXT'

kmsvt demo: fast user switching
  alice's session is on VT2, bob's on VT3 (kmsvt-session under seatd),
  this console on tty1.
  Keys: Alt+F2 / Alt+F3 here; Ctrl+Alt+F1 / F2 / F3 in a session.
  From this shell or the serial one (prints the time of the switch):
      kmsvt-switch 2      kmsvt-switch 3      kmsvt-switch 1
  Also try:
      cat /sys/kernel/debug/dri/0/kmsvt_stats      modesets vs plane updates
      echo current > /sys/kernel/debug/dri/0/panic_preview   (off: back)
      kmsvt-info; modetest -M kmsvt -s <connector>:1024x768
      echo c > /proc/sysrq-trigger                 the real panic screen
TEXT
echo "kmsvt demo: sessions up (alice vt2, bob vt3); kmsvt-switch N switches" >/dev/ttyS0
