# kmsvt top-level Makefile.  See README for the two commands that matter:
#   make run    boot the demo VM with kmsvt as display driver
#   make test   run the whole suite on both target kernels
#
# The kernel module itself is described by Kbuild.

BUILD     := $(CURDIR)/build
SRC_DIRS  := kms gem draw fbdev panic
MOD_SRCS  := Kbuild $(wildcard *.[ch] $(addsuffix /*.[ch],$(SRC_DIRS)))
PYTHON    ?= python3
# Kbuild's jobs for the module (the tree's five kernels are built one after
# the other; each one's files at once).
NPROC     := $(shell nproc 2>/dev/null || echo 1)

ifneq ($(KDIR),)
# Build for one given kernel tree, e.g. the running one.
KRELS := $(shell $(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null)
kmake = $(MAKE) -C $(KDIR)
else
KRELS := $(shell cat $(BUILD)/kernels/releases 2>/dev/null)
kmake = sh scripts/kenv.sh --make $(1)
endif

# A tool is one file, userspace/NAME.c, or a folder of them, userspace/NAME/.
USER_DIRS  := $(patsubst %/,%,$(dir $(wildcard userspace/*/*.c)))
USER_TOOLS := $(patsubst userspace/%.c,$(BUILD)/userspace/%,$(wildcard userspace/*.c)) \
	      $(patsubst userspace/%,$(BUILD)/userspace/%,$(sort $(USER_DIRS)))
USER_CFLAGS := -O2 -g -Wall -Wextra -Werror $(shell pkg-config --cflags libdrm 2>/dev/null)
USER_LIBS := $(shell pkg-config --libs libdrm 2>/dev/null)

.PHONY: module-sources user-tools all modules userspace deps run test test-debug test-igt test-package bench screenshots check clean install uninstall deb
all: modules userspace

modules:
	@[ -n "$(KRELS)" ] || { echo "no target kernels: run 'make deps' (or give KDIR=)"; exit 1; }
	@set -e; for rel in $(KRELS); do \
		$(MAKE) --no-print-directory module-one REL=$$rel; done

# Kbuild cannot put objects outside M=, so each kernel gets a copy of the
# sources in build/<release>/ and builds there, with the compiler its kernel
# was built with (scripts/kenv.sh: Debian 13's and sid's in a Debian root of
# their own).  This is the build the tests run, with the panic tests' crash
# triggers (KMSVT_TEST_HOOKS, see Kbuild) and warnings as errors
# (KMSVT_WERROR); `make install` has DKMS build the module without either.
module-one:
	@mkdir -p $(BUILD)/$(REL)
	@tar cf - $(MOD_SRCS) | tar xf - -C $(BUILD)/$(REL)
	$(call kmake,$(REL)) -j$(NPROC) M=$(BUILD)/$(REL) KMSVT_TEST_HOOKS=1 KMSVT_WERROR=1 modules
	@echo "built $(BUILD)/$(REL)/kmsvt.ko"

# The module's sources, the one list every copy of them is made from:
# module-one here, scripts/install.sh (DKMS), make check, and the tests'
# panic-path check and systemd guest.
module-sources:
	@echo $(MOD_SRCS)

# The tools' names, the list the Debian package's test checks it against.
user-tools:
	@echo $(notdir $(USER_TOOLS))

userspace: $(USER_TOOLS)

# CPPFLAGS, CFLAGS and LDFLAGS are empty unless given: the Debian package
# (debian/rules) passes dpkg-buildflags' hardening through them.
# kmsvt-session takes its seat through libseat.
$(BUILD)/userspace/kmsvt-session: USER_LIBS += -lseat

$(BUILD)/userspace/%: userspace/%.c $(wildcard userspace/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(USER_LIBS)

.SECONDEXPANSION:
$(BUILD)/userspace/%: $$(wildcard userspace/%/*.c) $$(wildcard userspace/%/*.h) \
		      $(wildcard userspace/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -Iuserspace -o $@ \
		$(filter %.c,$^) $(USER_LIBS)

deps:
	BUILD=$(BUILD) sh scripts/deps.sh

run: deps
	$(MAKE) all
	$(PYTHON) tests/demo.py

test: deps
	$(MAKE) all
	$(MAKE) check
	$(PYTHON) tests/run.py

# The debug kernel (lockdep, KASAN, kmemleak, fault injection; see
# docs/RELIABILITY.md): Debian's linux-source-6.12 built once by
# scripts/debug-kernel.sh, not one of build/kernels/releases.  A selection
# of the guest tests runs on it, with kmemleak scanned after each test, and
# test_faultinject (allocation failures in kmsvt's calls), which needs it.
# The Xorg guests are left out: their disk image needs ext4, which the
# debug kernel does not build.  DEBUG_KCFLAGS: extra flags for kmsvt's
# build against it (linux-source-6.12 is newer than the 6.12 of make test).
comma := ,
empty :=
space := $(empty) $(empty)
DEBUG_MODS := test_seat test_console test_fonts test_scrollback test_cursor test_panic \
	test_client test_faultinject test_pstore \
	$(basename $(notdir $(wildcard tests/guest/test_fuzz.py tests/guest/test_faults.py)))
# test_faults' unload cycles count slab objects, which kmemleak's own and
# the deferred frees of the debug kernel make grow: kmemleak judges leaks
# there instead.  The debug kernel is built without ramoops.
DEBUG_SELECT := test_seat.test_seat_cycle $(addsuffix .,$(filter-out test_seat,$(DEBUG_MODS))) -xorg \
	-test_unload_busy_and_cycles -test_ramoops_first
test-debug: deps
	$(MAKE) userspace
	sh scripts/debug-kernel.sh
	$(MAKE) module-one REL=$$(sh scripts/debug-kernel.sh --release) \
		$(if $(DEBUG_KCFLAGS),KCFLAGS="$(DEBUG_KCFLAGS)")
	KMSVT_DEBUG_CHECKS=1 KMSVT_BOOT_TIMEOUT=300 $(PYTHON) tests/run.py --no-unit \
		--modules $(subst $(space),$(comma),$(strip $(DEBUG_MODS))) \
		-k $(subst $(space),$(comma),$(strip $(DEBUG_SELECT))) \
		$$(sh scripts/debug-kernel.sh --release)

# make deb's packages installed and purged by apt in the booted systemd
# guest, DKMS's build under TCG included: about 9 minutes a kernel, too
# long for make test, whose test_package runs apt in the guest's root.
# IGT's whole KMS and core set on kmsvt and in-tree bochs, every full
# kernel (the suite runs a subset on kmsvt): docs/RELIABILITY.md, "IGT".
test-igt: deps
	$(MAKE) all
	$(PYTHON) tests/run.py --no-unit --modules test_igt_full

test-package: deps
	$(MAKE) all
	$(PYTHON) tests/run.py --no-unit --modules test_package_apt

bench: deps
	$(MAKE) all
	$(PYTHON) tests/bench/run.py $(BENCH_ARGS)

# docs/screenshots/*.png, the README's pictures: the tests that take them
# (harness.screenshot) on the 6.1 kernel, with KMSVT_SCREENSHOTS=1.  No
# other run writes them, make test included.
SCREENSHOT_TESTS := test_console.test_boot_console test_panic.test_panic_console \
	test_panic.test_panic_qr -test_panic_qr_and_log
screenshots: deps
	$(MAKE) all
	rel=$$(tr ' ' '\n' < $(BUILD)/kernels/releases | grep '^6\.1\.') && \
	KMSVT_SCREENSHOTS=1 $(PYTHON) tests/run.py --no-unit \
		-k $(subst $(space),$(comma),$(strip $(SCREENSHOT_TESTS))) $$rel

# A long kmsvt-fuzz run on each kernel, one guest at a time (an hour each
# by default): make fuzz FUZZ_SECONDS=600 FUZZ_SEED=42.  docs/RELIABILITY.md.
FUZZ_SECONDS ?= 3600
.PHONY: fuzz
fuzz: deps
	$(MAKE) all
	$(PYTHON) tests/fuzz_long.py --seconds $(FUZZ_SECONDS) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED))

check:
	sh scripts/check.sh

# DKMS, modprobe.d and an initramfs-tools hook, for KVER (default: the
# running kernel); see README, "Install".
install uninstall:
	$(if $(KVER),KVER=$(KVER)) $(if $(KSRC),KSRC=$(KSRC)) sh scripts/install.sh $@

# The Debian packages kmsvt-dkms and kmsvt-tools, built by dpkg-buildpackage
# from a copy of the tree, into build/deb/, and checked by lintian.
deb:
	sh scripts/deb.sh

clean:
	rm -rf $(filter-out $(BUILD)/kernels $(BUILD)/roots $(BUILD)/rootfs%,$(wildcard $(BUILD)/*))
