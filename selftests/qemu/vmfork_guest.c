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
 *
 * Two more files check what else was buffered or under way at the fork:
 *
 *   vmfork text HEX
 *	a d6 in text whose read faulted after 2 bytes before the fork, so
 *	some 500 whole lines wait in its buffer; the first 64 bytes read
 *	after the fork, which must not be those lines;
 *   vmfork inflight HEX discarded BEFORE AFTER
 *	a read of 2 MiB of d6 in U8 in flight across the fork (a chunk of
 *	1024 d6 rolls spends a third of the file's pool, so the pool's bits
 *	outlive the chunk, where a chunk of d256 would spend all): its buffer's
 *	second MiB is registered with userfaultfd, so the read stops at the
 *	first byte of it, inside the kernel, until the clone resolves the
 *	fault; 64 bytes from 1 MiB + DICE_CHUNK on (the chunk the read was
 *	copying when the VM was saved is served whole, as the docs say).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/dice.h>
#include <linux/userfaultfd.h>

#define MIB		(1 << 20)
#define DICE_CHUNK	1024	/* DICE_OUT_BYTES: a read's chunk */

static FILE *port;

static void hex(const unsigned char *p, size_t n)
{
	while (n--)
		fprintf(port, "%02x", *p++);
}

/* A d@sides in @fmt on the CRNG. */
static int open_die(__u64 sides, __u32 fmt)
{
	struct dice_die_args die = {
		.kind = DICE_KIND_FAIR,
		.sides = sides,
		.format = fmt,
	};
	int fd = open("/dev/dice", O_RDONLY);

	if (fd < 0 || ioctl(fd, DICE_IOC_SET_DIE, &die))
		return -1;
	return fd;
}

struct inflight {
	int fd;
	unsigned char *buf;
	ssize_t got;
};

static void *inflight_read(void *arg)
{
	struct inflight *r = arg;

	r->got = read(r->fd, r->buf, 2 * MIB);
	return NULL;
}

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
	struct dice_die_stats st;

	if (ioctl(fd, DICE_IOC_GET_STATS, &st))
		return -1;
	*v = st.bits_discarded;
	return 0;
}

/*
 * The interrupt is counted before the kernel handles it: the ACPI notify
 * runs later, from a workqueue, and calls the VM-fork notifiers, and a
 * read right away could beat it (one clone in a few dozen runs under TCG
 * on a loaded host read its old bits).  Wait until the notifiers have run:
 * the probe @pfd, a d256 that holds bits, drops them on its first roll
 * after, which its bits_discarded shows.  Each call leaves it holding bits
 * (two rolls when it holds only one's, so that the second draws more), so
 * that a drop always has bits to count.  Up to 10 s, then go on.
 */
static void wait_for_notifiers(int pfd, unsigned long long before)
{
	struct dice_die_stats st;
	unsigned long long held;
	unsigned char b[2];
	int i;

	for (i = 0; i < 1000; i++, usleep(10000)) {
		if (ioctl(pfd, DICE_IOC_GET_STATS, &st) ||
		    st.bits_discarded != before)
			return;
		held = st.bits_drawn - st.bits_used - st.bits_discarded;
		if (read(pfd, b, held > 8 ? 1 : 2) < 1)
			return;
	}
}

int main(void)
{
	unsigned long long before, after, in_before, in_after, p_before;
	unsigned char rolls[32], text[64], *page, *zeros;
	__u32 fmt = DICE_FMT_U8 | DICE_FMT_ZERO_BASED;
	long psize = sysconf(_SC_PAGESIZE);
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_api api = { .api = UFFD_API };
	struct inflight r = { .got = -1 };
	struct uffdio_copy copy;
	struct uffd_msg msg;
	unsigned long irqs;
	int fd, tfd, pfd, uffd, i;
	pthread_t reader;

	port = fopen("/dev/ttyS1", "w");
	fd = open_die(256, fmt);
	tfd = open_die(6, DICE_FMT_TEXT);
	pfd = open_die(256, fmt);
	r.fd = open_die(6, DICE_FMT_U8);
	page = mmap(NULL, 2 * psize, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r.buf = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	zeros = calloc(1, MIB);
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (!port || fd < 0 || tfd < 0 || pfd < 0 || r.fd < 0 ||
	    page == MAP_FAILED || r.buf == MAP_FAILED || !zeros || uffd < 0 ||
	    read(fd, rolls, 4) != 4 || discarded(fd, &before) ||
	    read(pfd, rolls, 4) != 4 || discarded(pfd, &p_before) ||
	    discarded(r.fd, &in_before) ||
	    mprotect(page + psize, psize, PROT_NONE)) {
		perror("vmfork_guest: setup");
		return 1;
	}
	/* The text read faults after 2 bytes: the rest of its lines wait. */
	if (read(tfd, page + psize - 2, 4096) != 2) {
		perror("vmfork_guest: faulting text read");
		return 1;
	}
	memset(r.buf, 0, MIB);
	reg.range.start = (unsigned long)r.buf + MIB;
	reg.range.len = MIB;
	if (ioctl(uffd, UFFDIO_API, &api) ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg) ||
	    pthread_create(&reader, NULL, inflight_read, &r) ||
	    read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT) {
		perror("vmfork_guest: a read stopped in flight");
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
	wait_for_notifiers(pfd, p_before);
	if (read(fd, rolls, sizeof(rolls)) != sizeof(rolls) ||
	    discarded(fd, &after) ||
	    read(tfd, text, sizeof(text)) != sizeof(text)) {
		perror("vmfork_guest: read");
		return 1;
	}
	/* Let the read in flight go on. */
	copy = (struct uffdio_copy){
		.dst = reg.range.start, .src = (unsigned long)zeros,
		.len = MIB,
	};
	if (ioctl(uffd, UFFDIO_COPY, &copy) || pthread_join(reader, NULL) ||
	    r.got != 2 * MIB || discarded(r.fd, &in_after)) {
		fprintf(port, "vmfork inflight-failed %zd\n", r.got);
		perror("vmfork_guest: the read in flight");
		return 1;
	}
	fprintf(port, "vmfork rolls ");
	hex(rolls, sizeof(rolls));
	fprintf(port, " discarded %llu %llu\n", before, after);
	fprintf(port, "vmfork text ");
	hex(text, sizeof(text));
	fprintf(port, "\nvmfork inflight ");
	hex(r.buf + MIB + DICE_CHUNK, 64);
	fprintf(port, " discarded %llu %llu\n", in_before, in_after);
	fflush(port);
	return 0;
}
