// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ring.c - batched reads of rolls through io_uring
 *
 * A ring keeps up to @depth reads of @bufsize bytes (DICE_FMT_U64 rolls)
 * in flight on the die's file, each into its own registered buffer
 * (IORING_OP_READ_FIXED on a registered file).  dice_ring_roll() copies
 * rolls out of completed buffers in the order they completed and queues a
 * new read as soon as a buffer is empty; the queued reads go to the kernel
 * with the next wait, or at the end of the call, so a caller that takes
 * millions of rolls makes about one system call per buffer's worth.
 *
 * /dev/dice is not seekable and its read ignores the position: the reads
 * use offset 0.  Every roll the module produces for a read is in the
 * buffer that read filled, so the die's stats count exactly the rolls
 * returned plus those still buffered (dice_ring_drain()).
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include <liburing.h>

#include "file.h"
#include "internal.h"
#include "ring.h"

/* Registered buffers are at most 1 GiB each; 1024 of them is plenty. */
#define DICE_RING_MAX_DEPTH	1024
#define DICE_RING_MAX_BUFSIZE	(1UL << 30)

enum dice_slot_state {
	DICE_SLOT_IDLE,		/* empty, no read queued */
	DICE_SLOT_QUEUED,	/* read queued or in flight */
	DICE_SLOT_READY,	/* filled, rolls left to return */
};

/**
 * struct dice_slot - one buffer of the ring
 * @state: enum dice_slot_state
 * @len: bytes the last read stored
 * @off: bytes of them already returned
 */
struct dice_slot {
	unsigned int state;
	size_t len;
	size_t off;
};

/**
 * struct dice_ring - reads of one die's rolls kept in flight
 * @d: the handle, NULL once dice_close() has closed it (the ring keeps
 *	its own reference to the file, registered with io_uring)
 * @uring: the io_uring
 * @depth: number of buffers
 * @bufsize: bytes per buffer, a multiple of 8
 * @mem: the buffers, @depth * @bufsize bytes
 * @queued: slots in DICE_SLOT_QUEUED
 * @unsubmitted: reads queued since the last submission
 * @ready: slots in DICE_SLOT_READY, in completion order (a ring of @depth)
 * @ready_head: index in @ready of the slot rolls come from next
 * @ready_count: entries in @ready
 * @err: the first error; once set every dice_ring_roll() returns it
 * @slot: the buffers' states
 */
struct dice_ring {
	struct dice *d;
	struct io_uring uring;
	unsigned int depth;
	size_t bufsize;
	unsigned char *mem;
	unsigned int queued;
	unsigned int unsubmitted;
	unsigned int *ready;
	unsigned int ready_head;
	unsigned int ready_count;
	int err;
	struct dice_slot slot[];
};

static void dice_ring_queue(struct dice_ring *r, unsigned int i)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->uring);

	/* Never NULL: the ring has @depth entries, one per slot at most. */
	io_uring_prep_read_fixed(sqe, 0, r->mem + (size_t)i * r->bufsize,
				 r->bufsize, 0, i);
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, i);
	r->slot[i].state = DICE_SLOT_QUEUED;
	r->queued++;
	r->unsubmitted++;
}

static int dice_ring_submit(struct dice_ring *r)
{
	int ret;

	if (!r->unsubmitted)
		return 0;
	ret = io_uring_submit(&r->uring);
	if (ret < 0)
		return ret;
	r->unsubmitted = 0;
	return 0;
}

/* Take every completion there is, into the ready queue. */
static int dice_ring_reap(struct dice_ring *r)
{
	struct io_uring_cqe *cqe;
	int err = 0;

	while (!io_uring_peek_cqe(&r->uring, &cqe)) {
		unsigned int i = (unsigned int)io_uring_cqe_get_data64(cqe);
		int res = cqe->res;
		struct dice_slot *s;

		io_uring_cqe_seen(&r->uring, cqe);
		if (i >= r->depth)
			return -EIO;
		s = &r->slot[i];
		s->state = DICE_SLOT_IDLE;
		r->queued--;
		if (res < 0) {
			err = err ? err : res;
			continue;
		}
		/* The device never ends and never splits a binary roll. */
		if (!res || res % 8) {
			err = err ? err : -EIO;
			continue;
		}
		s->len = res;
		s->off = 0;
		s->state = DICE_SLOT_READY;
		r->ready[(r->ready_head + r->ready_count) % r->depth] = i;
		r->ready_count++;
	}
	return err;
}

/* Submit what is queued and wait for at least one completion. */
static int dice_ring_wait(struct dice_ring *r)
{
	int ret;

	do {
		ret = io_uring_submit_and_wait(&r->uring, 1);
	} while (ret == -EINTR);
	if (ret < 0)
		return ret;
	r->unsubmitted = 0;
	return dice_ring_reap(r);
}

DICE_EXPORT int dice_ring_open(struct dice *d, unsigned int depth,
			       size_t bufsize, struct dice_ring **out)
{
	struct dice_ring *r;
	struct iovec *iov;
	unsigned int i;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!d)
		return -EINVAL;
	if (d->eng)
		return -EOPNOTSUPP;
	if (d->ring)
		return -EBUSY;
	if (!depth || depth > DICE_RING_MAX_DEPTH || bufsize < 8 ||
	    bufsize % 8 || bufsize > DICE_RING_MAX_BUFSIZE)
		return -EINVAL;
	err = dice_file_format(d, DICE_FMT_U64);
	if (err)
		return err;

	r = calloc(1, sizeof(*r) + depth * sizeof(r->slot[0]));
	if (!r)
		return -ENOMEM;
	r->d = d;
	r->depth = depth;
	r->bufsize = bufsize;
	r->ready = calloc(depth, sizeof(*r->ready));
	iov = calloc(depth, sizeof(*iov));
	if (!r->ready || !iov) {
		err = -ENOMEM;
		goto out_free;
	}
	r->mem = mmap(NULL, depth * bufsize, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->mem == MAP_FAILED) {
		r->mem = NULL;
		err = -errno;
		goto out_free;
	}
	err = io_uring_queue_init(depth, &r->uring, 0);
	if (err)
		goto out_free;
	for (i = 0; i < depth; i++) {
		iov[i].iov_base = r->mem + (size_t)i * bufsize;
		iov[i].iov_len = bufsize;
	}
	err = io_uring_register_buffers(&r->uring, iov, depth);
	if (!err)
		err = io_uring_register_files(&r->uring, &d->fd, 1);
	if (err)
		goto out_exit;
	for (i = 0; i < depth; i++)
		dice_ring_queue(r, i);
	err = dice_ring_submit(r);
	if (err)
		goto out_exit;
	free(iov);
	d->ring = r;
	*out = r;
	return 0;

out_exit:
	io_uring_queue_exit(&r->uring);
out_free:
	if (r->mem)
		munmap(r->mem, depth * bufsize);
	free(iov);
	free(r->ready);
	free(r);
	return err;
}

DICE_EXPORT int dice_ring_roll(struct dice_ring *r, uint64_t *faces,
			       size_t count)
{
	size_t done = 0;
	int err;

	if (!r || (!faces && count))
		return -EINVAL;
	if (r->err)
		return r->err;
	while (done < count) {
		unsigned int i;
		struct dice_slot *s;
		const unsigned char *src;
		size_t n;

		if (!r->ready_count) {
			err = dice_ring_wait(r);
			if (err) {
				r->err = err;
				return err;
			}
			continue;
		}
		i = r->ready[r->ready_head];
		s = &r->slot[i];
		src = r->mem + (size_t)i * r->bufsize + s->off;
		n = (s->len - s->off) / 8;
		if (n > count - done)
			n = count - done;
#if __BYTE_ORDER == __LITTLE_ENDIAN
		memcpy(faces + done, src, n * 8);
#else
		for (size_t k = 0; k < n; k++) {
			uint64_t v;

			memcpy(&v, src + 8 * k, 8);
			faces[done + k] = le64toh(v);
		}
#endif
		s->off += n * 8;
		done += n;
		if (s->off == s->len) {
			r->ready_head = (r->ready_head + 1) % r->depth;
			r->ready_count--;
			explicit_bzero(r->mem + (size_t)i * r->bufsize, s->len);
			dice_ring_queue(r, i);
		}
	}
	err = dice_ring_submit(r);
	if (err)
		r->err = err;
	return err;
}

DICE_EXPORT int dice_ring_drain(struct dice_ring *r, uint64_t *buffered)
{
	uint64_t rolls = 0;
	unsigned int i;
	int err = 0;

	if (!r)
		return -EINVAL;
	while (r->queued && !err)
		err = dice_ring_wait(r);
	if (err && !r->err)
		r->err = err;
	for (i = 0; i < r->depth; i++)
		if (r->slot[i].state == DICE_SLOT_READY)
			rolls += (r->slot[i].len - r->slot[i].off) / 8;
	if (buffered)
		*buffered = rolls;
	return err;
}

void dice_ring_detach(struct dice_ring *r)
{
	r->d = NULL;
}

DICE_EXPORT void dice_ring_close(struct dice_ring *r)
{
	if (!r)
		return;
	/* Let the reads finish so the die's accounting is settled. */
	while (r->queued && !dice_ring_wait(r))
		;
	io_uring_queue_exit(&r->uring);
	explicit_bzero(r->mem, r->depth * r->bufsize);
	munmap(r->mem, r->depth * r->bufsize);
	if (r->d)
		r->d->ring = NULL;
	free(r->ready);
	free(r);
}
