/*
 * failnth N MODULE.ko [PARAMS]: load a module with finit_module() while
 * /proc/thread-self/fail-nth makes the N-th fault-injectable allocation of
 * this task fail (N = 0: none).  With failslab's and fail_page_alloc's
 * require-start/require-end set to the module area, only allocations made
 * with module code on the stack count: the module's init and probe and the
 * DRM helpers they call, not the module loader.  Prints one line:
 *
 *   failnth: n=N rc=RC errno=E (strerror) left=L
 *
 * left is what remained of N after the load: 0 means the failure was
 * injected; with a large N, N - left is how many allocations counted.
 * Built (static) by tests/guest/test_faultinject.py for the debug kernel's guest.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char left[32] = "";
	const char *params = argc > 3 ? argv[3] : "";
	int fd, fn, err = 0;
	ssize_t len;
	long rc;

	if (argc < 3) {
		fprintf(stderr, "usage: failnth N MODULE.ko [PARAMS]\n");
		return 2;
	}
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[2]);
		return 2;
	}
	fn = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (fn < 0) {
		perror("/proc/thread-self/fail-nth (a kernel with CONFIG_FAULT_INJECTION?)");
		return 2;
	}
	if (write(fn, argv[1], strlen(argv[1])) < 0) {
		perror("fail-nth");
		return 2;
	}
	rc = syscall(SYS_finit_module, fd, params, 0);
	if (rc)
		err = errno;
	len = pread(fn, left, sizeof(left) - 1, 0);
	if (len > 0)
		left[len] = 0;
	left[strcspn(left, "\n")] = 0;
	if (pwrite(fn, "0", 1, 0) < 0)
		perror("fail-nth reset");
	printf("failnth: n=%s rc=%ld errno=%d (%s) left=%s\n", argv[1], rc, err,
	       err ? strerror(err) : "ok", left);
	return 0;
}
