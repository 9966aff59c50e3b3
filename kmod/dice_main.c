// SPDX-License-Identifier: GPL-2.0
/*
 * dice_main.c - /dev/dice, a misc device that rolls dice
 *
 * Every open file is one die (struct dice_file).  This file holds only what
 * is kernel business: the file operations, locking, copying to and from
 * userspace, the CRNG as bit source, and the global counters in sysfs.  The
 * die itself (sampling, accounting, encoding) is the core in dice_*.c.
 *
 * Sections: global counters, bit sources, open/release, read, write,
 * ioctls, module init.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "dice_core.h"

static unsigned int max_sides = 1U << 20;
module_param(max_sides, uint, 0644);
MODULE_PARM_DESC(max_sides, "Most sides a loaded die may have (default 1048576)");

/*
 * Bytes of rolls produced ahead of copy_to_iter(): one chunk of a read.
 * 1024 halves the per-chunk work of 512 (d6 U8 in the VM: 0.88 -> 0.94 of
 * /dev/urandom's bytes/s) and keeps struct dice_file within 4 KiB.
 */
#define DICE_OUT_BYTES	1024

/**
 * struct dice_file - one open file of /dev/dice: one die
 * @lock: serializes everything below; held while rolls are made and copied
 * @die: configuration and random state
 * @source: DICE_SRC_* the pool is filled from
 * @out: rolls encoded but not yet read: a partly read text line, or what a
 *	faulting copy left behind
 * @out_start: first byte of @out not yet read
 * @out_end: end of the bytes in @out
 * @reported: the die's rolls, bits used and bits drawn already added to the
 *	global counters
 * @faces: rolls on their way into @out
 */
struct dice_file {
	struct mutex lock;	/* protects all of the below */
	struct dice_die die;
	u32 source;
	u8 out[DICE_OUT_BYTES];
	unsigned int out_start;
	unsigned int out_end;
	u64 reported[3];
	u64 faces[64];
};

/* ---- global counters ------------------------------------------------------ */

/* Per CPU, so readers of different files never share a cache line. */
struct dice_counters {
	u64 rolls;
	u64 bits_used;
	u64 bits_drawn;
};

static struct dice_counters __percpu *dice_counters;
static atomic_long_t dice_open_count = ATOMIC_LONG_INIT(0);

static void dice_report(struct dice_file *df)
{
	struct dice_die *die = &df->die;
	u64 now[3] = {
		die->rolls,
		dice_pool_used(&die->pool),
		dice_pool_drawn(&die->pool),
	};
	struct dice_counters *c = get_cpu_ptr(dice_counters);

	c->rolls += now[0] - df->reported[0];
	c->bits_used += now[1] - df->reported[1];
	c->bits_drawn += now[2] - df->reported[2];
	put_cpu_ptr(dice_counters);
	memcpy(df->reported, now, sizeof(now));
}

static u64 dice_counter_sum(size_t offset)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(u64 *)((u8 *)per_cpu_ptr(dice_counters, cpu) + offset);
	return sum;
}

#define DICE_COUNTER_ATTR(name)						\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%llu\n",				\
		dice_counter_sum(offsetof(struct dice_counters, name)));\
}									\
static DEVICE_ATTR_RO(name)

DICE_COUNTER_ATTR(rolls);
DICE_COUNTER_ATTR(bits_used);
DICE_COUNTER_ATTR(bits_drawn);

static ssize_t open_dice_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&dice_open_count));
}
static DEVICE_ATTR_RO(open_dice);

static struct attribute *dice_attrs[] = {
	&dev_attr_rolls.attr,
	&dev_attr_bits_used.attr,
	&dev_attr_bits_drawn.attr,
	&dev_attr_open_dice.attr,
	NULL,
};
ATTRIBUTE_GROUPS(dice);

/* ---- bit sources ------------------------------------------------------------ */

static int dice_fill_crng(void *ctx, u64 *words, unsigned int nwords)
{
	get_random_bytes(words, nwords * sizeof(*words));
	return 0;
}

/* ---- open/release ------------------------------------------------------------- */

static int dice_open(struct inode *inode, struct file *file)
{
	struct dice_file *df;

	df = kzalloc(sizeof(*df), GFP_KERNEL_ACCOUNT);
	if (!df)
		return -ENOMEM;
	mutex_init(&df->lock);
	dice_die_init(&df->die, dice_fill_crng, NULL);
	df->source = DICE_SRC_KERNEL;
	file->private_data = df;
	file->f_mode |= FMODE_NOWAIT;
	atomic_long_inc(&dice_open_count);
	return nonseekable_open(inode, file);
}

static int dice_release(struct inode *inode, struct file *file)
{
	struct dice_file *df = file->private_data;

	dice_die_wipe(&df->die);
	mutex_destroy(&df->lock);
	kfree_sensitive(df);
	atomic_long_dec(&dice_open_count);
	return 0;
}

/* ---- read ------------------------------------------------------------------------ */

/* Decimal digits of the largest face, plus the newline. */
static unsigned int dice_text_line_max(const struct dice_die *die)
{
	u64 top = die->format & DICE_FMT_ZERO_BASED ? die->sides - 1 : die->sides;
	unsigned int len = 2;

	while (top >= 10) {
		top /= 10;
		len++;
	}
	return len;
}

/*
 * Encode rolls into the empty out buffer: whole binary rolls up to @want
 * bytes, or text lines until @want bytes are there (the last line may run
 * past @want and wait in the buffer for the next read).  Rolls are made a
 * batch at a time, never more than the read asked for.
 */
static int dice_produce(struct dice_file *df, size_t want)
{
	struct dice_die *die = &df->die;
	unsigned int width = dice_format_width(die->format);
	unsigned int line = width ? width : dice_text_line_max(die);
	unsigned int end = 0, count;
	int got = 0;

	if (width)
		want = min_t(size_t, want - want % width, DICE_OUT_BYTES);
	else
		want = min_t(size_t, want, DICE_OUT_BYTES - DICE_TEXT_MAX);
	while (end < want) {
		if (width == 1) {
			/* Bytes straight from the die, no faces[] between. */
			got = dice_die_roll_u8(die, df->out + end, want - end);
			if (got < 0)
				break;
			end += got;
			continue;
		}
		count = max_t(unsigned int, (want - end) / line, 1);
		count = min_t(unsigned int, count, ARRAY_SIZE(df->faces));
		got = dice_die_roll_many(die, df->faces, count);
		if (got < 0)
			break;
		end += dice_format_faces(die->format, df->faces, got,
					 df->out + end);
	}
	df->out_start = 0;
	df->out_end = end;
	return end ? 0 : got;
}

static ssize_t dice_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *file = iocb->ki_filp;
	struct dice_file *df = file->private_data;
	bool nowait = (iocb->ki_flags & IOCB_NOWAIT) ||
		      (file->f_flags & O_NONBLOCK);
	size_t want = iov_iter_count(to), done = 0;
	unsigned int width;
	ssize_t err = 0;

	if (!want)
		return 0;
	if (READ_ONCE(df->source) == DICE_SRC_KERNEL && !rng_is_initialized()) {
		if (nowait)
			return -EAGAIN;
		err = wait_for_random_bytes();
		if (err)
			return err;
	}
	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (!mutex_trylock(&df->lock))
			return -EAGAIN;
	} else if (mutex_lock_interruptible(&df->lock)) {
		return -ERESTARTSYS;
	}
	width = dice_format_width(df->die.format);
	if (width && df->out_start == df->out_end) {
		if (want < width) {
			err = -EINVAL;
			goto out_unlock;
		}
		want -= want % width;
	}
	while (done < want) {
		size_t chunk, copied;

		if (df->out_start == df->out_end) {
			err = dice_produce(df, want - done);
			if (err)
				break;
		}
		chunk = min_t(size_t, df->out_end - df->out_start, want - done);
		copied = copy_to_iter(df->out + df->out_start, chunk, to);
		df->out_start += copied;
		done += copied;
		if (copied != chunk) {
			/* Half a binary roll went out: drop the rest of the
			 * chunk so later reads still return whole rolls.
			 */
			if (width)
				df->out_start = df->out_end;
			err = -EFAULT;
			break;
		}
		if (done == want)
			break;
		if (signal_pending(current)) {
			err = -ERESTARTSYS;
			break;
		}
		if (need_resched()) {
			if (iocb->ki_flags & IOCB_NOWAIT)
				break;
			dice_report(df);
			mutex_unlock(&df->lock);
			cond_resched();
			if (mutex_lock_interruptible(&df->lock))
				return done ? done : -ERESTARTSYS;
			/* The format may have changed while we slept. */
			width = dice_format_width(df->die.format);
			if (width)
				want = done + (want - done) - (want - done) % width;
		}
	}
	dice_report(df);
out_unlock:
	mutex_unlock(&df->lock);
	return done ? done : err;
}

/* ---- write: bits for DICE_SRC_WRITTEN --------------------------------------------- */

/*
 * Bytes written become bits for later rolls, most significant bit first.
 * Writes never block: when the buffer is full, read rolls to make room.
 */
static ssize_t dice_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct dice_file *df = iocb->ki_filp->private_data;
	struct dice_pool *pool = &df->die.pool;
	size_t want = iov_iter_count(from), done = 0;
	ssize_t err = 0;
	u8 buf[64];

	if (!want)
		return 0;
	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (!mutex_trylock(&df->lock))
			return -EAGAIN;
	} else if (mutex_lock_interruptible(&df->lock)) {
		return -ERESTARTSYS;
	}
	if (df->source != DICE_SRC_WRITTEN) {
		err = -EINVAL;
		goto out_unlock;
	}
	while (done < want) {
		size_t chunk = min3(want - done, sizeof(buf),
				    (size_t)dice_pool_room(pool) / 8);
		size_t copied, i;

		if (!chunk)
			break;
		copied = copy_from_iter(buf, chunk, from);
		for (i = 0; i < copied; i++)
			dice_pool_put(pool, buf[i], 8);
		done += copied;
		if (copied != chunk) {
			err = -EFAULT;
			break;
		}
	}
	if (!done && !err)
		err = -EAGAIN;
	dice_report(df);
out_unlock:
	mutex_unlock(&df->lock);
	memzero_explicit(buf, sizeof(buf));
	return done ? done : err;
}

/* ---- ioctls ------------------------------------------------------------------------ */

/* An ioctl number with its size bits cleared: structs may grow. */
#define DICE_IOC_BASE(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

/* Copy a struct out, no more than the caller's size, zeroing any excess. */
static int dice_copy_struct_to_user(void __user *dst, size_t usize,
				    const void *src, size_t ksize)
{
	if (!usize)
		return -EINVAL;
	if (copy_to_user(dst, src, min(usize, ksize)))
		return -EFAULT;
	if (usize > ksize && clear_user(dst + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}

static long dice_ioctl_set_sides(struct dice_file *df, u64 __user *uarg)
{
	u64 sides;
	int err;

	if (get_user(sides, uarg))
		return -EFAULT;
	mutex_lock(&df->lock);
	err = dice_die_set_sides(&df->die, sides);
	mutex_unlock(&df->lock);
	return err;
}

static long dice_ioctl_set_format(struct dice_file *df, u32 __user *uarg)
{
	u32 format;
	int err;

	if (get_user(format, uarg))
		return -EFAULT;
	mutex_lock(&df->lock);
	err = dice_die_set_format(&df->die, format);
	/* Bytes still buffered are in the old encoding: drop them. */
	if (!err) {
		df->out_start = 0;
		df->out_end = 0;
	}
	mutex_unlock(&df->lock);
	return err;
}

static long dice_ioctl_set_method(struct dice_file *df, u32 __user *uarg)
{
	u32 method;
	int err;

	if (get_user(method, uarg))
		return -EFAULT;
	mutex_lock(&df->lock);
	err = dice_die_set_method(&df->die, method);
	mutex_unlock(&df->lock);
	return err;
}

static long dice_ioctl_set_source(struct dice_file *df, u32 __user *uarg)
{
	u32 source;

	if (get_user(source, uarg))
		return -EFAULT;
	if (source != DICE_SRC_KERNEL && source != DICE_SRC_WRITTEN)
		return -EINVAL;
	mutex_lock(&df->lock);
	dice_die_set_source(&df->die,
			    source == DICE_SRC_KERNEL ? dice_fill_crng : NULL,
			    NULL);
	WRITE_ONCE(df->source, source);
	/* Rolls waiting to be read came from the old source: drop them. */
	df->out_start = 0;
	df->out_end = 0;
	dice_report(df);
	mutex_unlock(&df->lock);
	return 0;
}

static long dice_ioctl_get_info(struct dice_file *df, void __user *uarg,
				size_t usize)
{
	struct dice_info info;

	mutex_lock(&df->lock);
	dice_die_info(&df->die, &info);
	info.source = df->source;
	mutex_unlock(&df->lock);
	return dice_copy_struct_to_user(uarg, usize, &info, sizeof(info));
}

static long dice_ioctl_get_stats(struct dice_file *df, void __user *uarg,
				 size_t usize)
{
	struct dice_stats stats;

	mutex_lock(&df->lock);
	dice_die_stats(&df->die, &stats);
	mutex_unlock(&df->lock);
	return dice_copy_struct_to_user(uarg, usize, &stats, sizeof(stats));
}

static long dice_install_table(struct dice_file *df, struct dice_table *table)
{
	int err;

	mutex_lock(&df->lock);
	err = dice_die_set_table(&df->die, table);
	mutex_unlock(&df->lock);
	return err;
}

static long dice_ioctl_set_weights(struct dice_file *df, void __user *uarg,
				   size_t usize)
{
	struct dice_weights arg;
	struct dice_table *table;
	u32 *weights;
	int err;

	err = copy_struct_from_user(&arg, sizeof(arg), uarg, usize);
	if (err)
		return err;
	if (arg.flags || !arg.sides)
		return -EINVAL;
	if (arg.sides > READ_ONCE(max_sides))
		return -E2BIG;
	weights = kvmalloc_array(arg.sides, sizeof(*weights), DICE_GFP);
	if (!weights)
		return -ENOMEM;
	if (copy_from_user(weights, u64_to_user_ptr(arg.weights),
			   (size_t)arg.sides * sizeof(*weights))) {
		err = -EFAULT;
		goto out_free_weights;
	}
	table = dice_table_alloc(arg.sides);
	if (!table) {
		err = -ENOMEM;
		goto out_free_weights;
	}
	err = dice_table_from_weights(table, weights);
	if (err) {
		dice_table_free(table);
		goto out_free_weights;
	}
	err = dice_install_table(df, table);
out_free_weights:
	kvfree(weights);
	return err;
}

static long dice_ioctl_set_alias(struct dice_file *df, void __user *uarg,
				 size_t usize)
{
	struct dice_alias arg;
	struct dice_table *table;
	int err;

	err = copy_struct_from_user(&arg, sizeof(arg), uarg, usize);
	if (err)
		return err;
	if (arg.flags || !arg.sides || !arg.mass)
		return -EINVAL;
	if (arg.sides > READ_ONCE(max_sides))
		return -E2BIG;
	table = dice_table_alloc(arg.sides);
	if (!table)
		return -ENOMEM;
	if (copy_from_user(table->thr, u64_to_user_ptr(arg.thresholds),
			   (size_t)arg.sides * sizeof(u64)) ||
	    copy_from_user(table->alias, u64_to_user_ptr(arg.aliases),
			   (size_t)arg.sides * sizeof(u32))) {
		err = -EFAULT;
		goto out_free_table;
	}
	err = dice_table_from_alias(table, arg.mass);
	if (err)
		goto out_free_table;
	return dice_install_table(df, table);

out_free_table:
	dice_table_free(table);
	return err;
}

/* The distribution in lowest terms, so a loaded die's total fits 64 bits. */
static long dice_ioctl_get_masses(struct dice_file *df, void __user *uarg,
				  size_t usize)
{
	struct dice_masses arg;
	u64 __user *masses;
	u64 unit, i;
	long err;

	if (!usize)
		return -EINVAL;
	err = copy_struct_from_user(&arg, sizeof(arg), uarg, usize);
	if (err)
		return err;
	if (arg.flags || arg.padding)
		return -EINVAL;
	masses = u64_to_user_ptr(arg.masses);
	mutex_lock(&df->lock);
	arg.sides = df->die.sides;
	err = dice_die_masses(&df->die, &unit, &arg.total);
	if (err)
		goto out_unlock;
	if (arg.sides > arg.capacity) {
		err = -ENOSPC;
		goto out_unlock;
	}
	for (i = 0; i < arg.sides; i++) {
		if (put_user(dice_die_mass(&df->die, unit, i), masses + i)) {
			err = -EFAULT;
			goto out_unlock;
		}
	}
out_unlock:
	mutex_unlock(&df->lock);
	if (err && err != -ENOSPC)
		return err;
	if (dice_copy_struct_to_user(uarg, usize, &arg, sizeof(arg)))
		return -EFAULT;
	return err;
}

static long dice_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct dice_file *df = file->private_data;
	void __user *uarg = (void __user *)arg;
	size_t usize = _IOC_SIZE(cmd);

	switch (cmd) {
	case DICE_IOC_SET_SIDES:
		return dice_ioctl_set_sides(df, uarg);
	case DICE_IOC_SET_FORMAT:
		return dice_ioctl_set_format(df, uarg);
	case DICE_IOC_SET_METHOD:
		return dice_ioctl_set_method(df, uarg);
	case DICE_IOC_SET_SOURCE:
		return dice_ioctl_set_source(df, uarg);
	}
	switch (DICE_IOC_BASE(cmd)) {
	case DICE_IOC_BASE(DICE_IOC_GET_INFO):
		return dice_ioctl_get_info(df, uarg, usize);
	case DICE_IOC_BASE(DICE_IOC_GET_STATS):
		return dice_ioctl_get_stats(df, uarg, usize);
	case DICE_IOC_BASE(DICE_IOC_SET_WEIGHTS):
		return dice_ioctl_set_weights(df, uarg, usize);
	case DICE_IOC_BASE(DICE_IOC_SET_ALIAS):
		return dice_ioctl_set_alias(df, uarg, usize);
	case DICE_IOC_BASE(DICE_IOC_GET_MASSES):
		return dice_ioctl_get_masses(df, uarg, usize);
	}
	return -ENOTTY;
}

/* ---- module init ---------------------------------------------------------------------- */

static const struct file_operations dice_fops = {
	.owner = THIS_MODULE,
	.open = dice_open,
	.release = dice_release,
	.read_iter = dice_read_iter,
	.write_iter = dice_write_iter,
	.unlocked_ioctl = dice_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

static struct miscdevice dice_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "dice",
	.fops = &dice_fops,
	.mode = 0666,
	.groups = dice_groups,
};

static int __init dice_init(void)
{
	int err;

	dice_counters = alloc_percpu(struct dice_counters);
	if (!dice_counters)
		return -ENOMEM;
	err = misc_register(&dice_misc);
	if (err) {
		free_percpu(dice_counters);
		return err;
	}
	return 0;
}

static void __exit dice_exit(void)
{
	misc_deregister(&dice_misc);
	free_percpu(dice_counters);
}

module_init(dice_init);
module_exit(dice_exit);

MODULE_DESCRIPTION("Fair and loaded dice at the entropy bound: /dev/dice");
MODULE_AUTHOR("The dice developers");
MODULE_LICENSE("GPL");
