/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every kmsvt tool's command line does alike: --help and bad options,
 * and numbers checked with a message that names the option.  Exit status
 * 0 for --help, 2 for bad usage, in every tool.  Header-only, as
 * kms-util.h, so each tool stays one file (or folder) to build and read.
 */
#ifndef KMSVT_TOOL_H
#define KMSVT_TOOL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * The getopt switch's default: -h prints the usage on stdout (exit status
 * 0), anything else getopt refused on stderr (2).  Returns the status.
 */
static inline int tool_help(int opt, void (*usage)(FILE *f))
{
	usage(opt == 'h' ? stdout : stderr);
	return opt == 'h' ? 0 : 2;
}

/* -opt's argument as an integer in [min, max]; -1 after a message if not. */
static inline int tool_long(const char *tool, int opt, const char *arg, long min, long max,
			    long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 0);
	if (errno || end == arg || *end || *out < min || *out > max) {
		fprintf(stderr, "%s: -%c wants a number from %ld to %ld, not \"%s\"\n",
			tool, opt, min, max, arg);
		return -1;
	}
	return 0;
}

/* -opt's argument as an unsigned 64-bit number (a seed, a count). */
static inline int tool_u64(const char *tool, int opt, const char *arg, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || *arg == '-') {
		fprintf(stderr, "%s: -%c wants a number, not \"%s\"\n", tool, opt, arg);
		return -1;
	}
	return 0;
}

/* -opt's argument as a number greater than @above (seconds, milliseconds). */
static inline int tool_double(const char *tool, int opt, const char *arg, double above,
			      double *out)
{
	char *end;

	*out = strtod(arg, &end);
	if (end == arg || *end || !(*out > above)) {
		fprintf(stderr, "%s: -%c wants a number greater than %g, not \"%s\"\n",
			tool, opt, above, arg);
		return -1;
	}
	return 0;
}

/* -opt's argument as a mode size, WxH. */
static inline int tool_size(const char *tool, int opt, const char *arg, int *w, int *h)
{
	char x;

	if (sscanf(arg, "%d%c%d", w, &x, h) != 3 || x != 'x' || *w <= 0 || *h <= 0) {
		fprintf(stderr, "%s: -%c wants WxH, e.g. 1024x768, not \"%s\"\n", tool, opt, arg);
		return -1;
	}
	return 0;
}

#endif /* KMSVT_TOOL_H */
