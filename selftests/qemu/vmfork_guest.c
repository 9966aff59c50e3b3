// SPDX-License-Identifier: GPL-2.0
/*
 * vmfork_guest.c - the guest half of the VM fork test (vmfork.py)
 *
 * Opens /dev/dice on the CRNG as a d256 in U8 (each roll is 8 bits taken
 * straight from the file's buffer), reads a few rolls so the file buffers
 * a pool of CRNG output, then says "vmfork ready" on the verdict port and
 * waits for the ACPI interrupt that QEMU's vmgenid device raises when the
 * VM is restored as a clone.  Then it reads 32 rolls and reports them with
 * the file's bits_discarded before and after:
 *
 *   vmfork rolls HEX discarded BEFORE AFTER
 *
 * Two clones of one saved VM print different rolls only if the module
 * dropped what the file had buffered when the VM forked.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/dice.h>

/* Sum of the "acpi" line of /proc/interrupts: the SCI count. */
static unsigned long acpi_irqs(void)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[512];
	unsigned long sum = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');

		if (!p || !strstr(line, "acpi"))
			continue;
		for (p++; *p;) {
			char *end;
			unsigned long v = strtoul(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
	}
	if (f)
		fclose(f);
	return sum;
}

static int discarded(int fd, unsigned long long *v)
{
	struct dice_stats st;

	if (ioctl(fd, DICE_IOC_GET_STATS, &st))
		return -1;
	*v = st.bits_discarded;
	return 0;
}

int main(void)
{
	unsigned long long before, after;
	unsigned char rolls[32];
	__u64 sides = 256;
	__u32 fmt = DICE_FMT_U8 | DICE_FMT_ZERO_BASED;
	FILE *port = fopen("/dev/ttyS1", "w");
	unsigned long irqs;
	int fd, i;

	fd = open("/dev/dice", O_RDONLY);
	if (!port || fd < 0 || ioctl(fd, DICE_IOC_SET_SIDES, &sides) ||
	    ioctl(fd, DICE_IOC_SET_FORMAT, &fmt) ||
	    read(fd, rolls, 4) != 4 || discarded(fd, &before)) {
		perror("vmfork_guest: setup");
		return 1;
	}
	irqs = acpi_irqs();
	fprintf(port, "vmfork ready\n");
	fflush(port);
	/* The host saves this VM now and starts its clones from it. */
	for (i = 0; i < 600 && acpi_irqs() == irqs; i++)
		usleep(100000);
	if (acpi_irqs() == irqs) {
		fprintf(port, "vmfork no-interrupt\n");
		return 1;
	}
	/*
	 * The interrupt is counted before the kernel handles it: the ACPI
	 * notify runs later, from a workqueue, and calls the VM-fork
	 * notifiers.  A read right away could beat it (one clone in a few
	 * dozen runs under TCG on a loaded host read its old bits); a
	 * second is plenty.
	 */
	sleep(1);
	if (read(fd, rolls, sizeof(rolls)) != sizeof(rolls) ||
	    discarded(fd, &after)) {
		perror("vmfork_guest: read");
		return 1;
	}
	fprintf(port, "vmfork rolls ");
	for (i = 0; i < (int)sizeof(rolls); i++)
		fprintf(port, "%02x", rolls[i]);
	fprintf(port, " discarded %llu %llu\n", before, after);
	fflush(port);
	return 0;
}
