// SPDX-License-Identifier: GPL-2.0
/*
 * dice_main.c - /dev/dice, a misc device that rolls dice
 *
 * Every open file is one die (struct dice_file).  This file holds only what
 * is kernel business: the file operations, locking, copying to and from
 * series: loaded
 * userspace, the CRNG as bit source, the global counters in debugfs and
 * the tables' memory budget.
 * series: not loaded
 * userspace, the CRNG as bit source and the global counters in debugfs.
 * series: end
 * The die and its stream of encoded rolls (sampling, accounting, encoding,
 * written bits) are the core in dice_*.c, used through dice_core.h.
 *
 * The node is mode 0666, so everything here assumes a hostile caller: every
 * loop over user memory is chunked with signal checks and cond_resched(),
 * series: loaded
 * every allocation is charged to the caller's memory cgroup and tables to
 * a budget of each user, and the counters that follow rolls are root's.
 * series: not loaded
 * every allocation is charged to the caller's memory cgroup, and the
 * counters that follow rolls are root's.
 * series: end
 *
 * series: loaded
 * Sections: global counters, table budget, bit sources, open/release,
 * series: not loaded
 * Sections: global counters, bit sources, open/release,
 * series: end
 * locking and readiness, read, write, ioctls, module init.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/suspend.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/user_namespace.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "dice_core.h"
#include "dice_test_hooks.h"

/* series: loaded */
/*
 * Alias tables are the only memory a file makes the kernel hold that grows
 * with its arguments (up to 28 bytes a side, DICE_TABLE_SIDES_MAX sides: 28
 * MiB as charged, 46 MiB while built).  They are charged to the caller's
 * memory cgroup (DICE_GFP); because a desktop often sets no memory limit,
 * the files whose tables one user set also hold at most an eighth of RAM
 * in tables (set at load), so that no user drives the machine into the OOM
 * killer through them.  Per user, as pipes count their buffers: a budget
 * of all files together would let one user fill it and refuse everyone
 * else's tables; the uids of a user namespace count as its owner's
 * (dice_budget_owner()).  Over it only CAP_SYS_RESOURCE goes on, as for
 * pipes.
 * dice_tables_held counts every user's, for debugfs.
 */
static unsigned long dice_table_limit __ro_after_init;
static atomic_long_t dice_tables_held = ATOMIC_LONG_INIT(0);

/**
 * struct dice_budget_user - one user's part of the tables' budget
 * @node: in dice_budget_users, by @uid
 * @uid: the real user ID that set the tables
 * @charges: charges not yet given back (builds under way, dice holding a
 *	table); the entry goes when the last one does
 * @held: bytes those charges hold
 *
 * Under dice_budget_lock.
 */
struct dice_budget_user {
	struct hlist_node node;
	kuid_t uid;
	unsigned long charges;
	unsigned long held;
};

static DEFINE_HASHTABLE(dice_budget_users, 6);
static DEFINE_SPINLOCK(dice_budget_lock);
/* series: end */

/*
 * The module's counters (debugfs, root's): per CPU, so that readers of
 * different files never share a cache line; and, in each file, the part of
 * its own counts already added to them.
 */
struct dice_counters {
	u64 rolls;
	u64 bits_used;
	u64 bits_drawn;
};

/**
 * struct dice_file - one open file of /dev/dice: one die
 * @lock: serializes everything below; held while rolls are made and copied
 * @stream: the die and the rolls encoded for reading
 * @source: DICE_SRC_* the die's bits come from
 * @reported: the die's rolls, bits used and bits drawn already added to the
 *	module's counters
 * series: loaded
 * @table_cost: bytes of the tables' budget charged for the die's table
 *	(dice_alloc_cost()), 0 when it has none
 * @table_user: whose budget @table_cost is charged to, NULL when none
 * series: end
 * @wait: poll() waits here; woken after a change that may make the file
 *	readable or writable (has its own lock)
 * @forks: dice_vm_forks when the file last rolled from the CRNG
 * @crng_words: words the next CRNG fill may draw (dice_fill_crng())
 * @changes: SET_DIE and SET_SOURCE calls done, so that a read that
 *	dropped the lock can tell that its die is no more
 */
struct dice_file {
	struct mutex lock;	/* protects all of the below but @wait */
	struct dice_stream *stream;
	u32 source;
	struct dice_counters reported;
	/* series: loaded */
	size_t table_cost;
	struct dice_budget_user *table_user;
	/* series: end */
	wait_queue_head_t wait;
	unsigned int forks;
	unsigned int crng_words;
	unsigned int changes;
};

/* ---- global counters ------------------------------------------------------ */

static struct dice_counters __percpu *dice_counters;
static atomic_long_t dice_open_count = ATOMIC_LONG_INIT(0);

static void dice_report(struct dice_file *df)
{
	struct dice_counters *c, *seen = &df->reported;
	struct dice_die_stats now;

	if (!df->stream)
		return;
	dice_die_stats(dice_stream_die(df->stream), &now);
	/* Marked stores: dice_counter_sum() reads them from other CPUs. */
	c = get_cpu_ptr(dice_counters);
	WRITE_ONCE(c->rolls, c->rolls + now.rolls - seen->rolls);
	WRITE_ONCE(c->bits_used,
		   c->bits_used + now.bits_used - seen->bits_used);
	WRITE_ONCE(c->bits_drawn,
		   c->bits_drawn + now.bits_drawn - seen->bits_drawn);
	put_cpu_ptr(dice_counters);
	seen->rolls = now.rolls;
	seen->bits_used = now.bits_used;
	seen->bits_drawn = now.bits_drawn;
}

static u64 dice_counter_sum(size_t offset)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*(u64 *)((u8 *)per_cpu_ptr(dice_counters, cpu) +
					  offset));
	return sum;
}

/*
 * /sys/kernel/debug/dice/: what an administrator watches to see the device
 * used and at what cost.  Root's alone (0400): under recycling bits_used
 * follows the self-information of the faces served, so an observer polling
 * it while another user rolls one roll at a time would learn that user's
 * faces.  debugfs, not sysfs: monitoring figures, not an ABI.
 */
static struct dentry *dice_debugfs;

static int dice_rolls_get(void *data, u64 *val)
{
	*val = dice_counter_sum(offsetof(struct dice_counters, rolls));
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(dice_rolls_fops, dice_rolls_get, NULL, "%llu\n");

static int dice_bits_used_get(void *data, u64 *val)
{
	*val = dice_counter_sum(offsetof(struct dice_counters, bits_used));
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(dice_bits_used_fops, dice_bits_used_get, NULL,
			 "%llu\n");

static int dice_bits_drawn_get(void *data, u64 *val)
{
	*val = dice_counter_sum(offsetof(struct dice_counters, bits_drawn));
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(dice_bits_drawn_fops, dice_bits_drawn_get, NULL,
			 "%llu\n");

static int dice_long_get(void *data, u64 *val)
{
	*val = atomic_long_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(dice_long_fops, dice_long_get, NULL, "%lld\n");

static void dice_debugfs_init(void)
{
	dice_debugfs = debugfs_create_dir("dice", NULL);
	debugfs_create_file_unsafe("rolls", 0400, dice_debugfs, NULL,
				   &dice_rolls_fops);
	debugfs_create_file_unsafe("bits_used", 0400, dice_debugfs, NULL,
				   &dice_bits_used_fops);
	debugfs_create_file_unsafe("bits_drawn", 0400, dice_debugfs, NULL,
				   &dice_bits_drawn_fops);
	debugfs_create_file_unsafe("open_dice", 0400, dice_debugfs,
				   &dice_open_count, &dice_long_fops);
	/* series: loaded */
	debugfs_create_file_unsafe("table_bytes", 0400, dice_debugfs,
				   &dice_tables_held, &dice_long_fops);
	debugfs_create_ulong("table_limit", 0400, dice_debugfs,
			     &dice_table_limit);
	/* series: end */
}

/* series: loaded */
/* ---- table budget ------------------------------------------------------------ */

/*
 * What an allocation of @size bytes by dice_table_mem() may really take: a
 * kmalloc() bucket up to a page, above it whole vmalloc() pages.
 */
static size_t dice_alloc_cost(size_t size)
{
	if (size <= PAGE_SIZE)
		return kmalloc_size_roundup(size);
	return PAGE_ALIGN(size);
}

/*
 * The most a build of a table of @sides sides holds at once: the table and
 * its packed copy (dice_die_set_table() packs it), or before that the table
 * and the weights, which are no larger than the copy.
 */
static size_t dice_build_cost(u32 sides)
{
	return dice_alloc_cost(dice_table_bytes(sides, false)) +
	       dice_alloc_cost(dice_table_bytes(sides, true));
}

static size_t dice_held_cost(const struct dice_die *die)
{
	size_t bytes = dice_die_table_bytes(die);

	return bytes ? dice_alloc_cost(bytes) : 0;
}

static struct dice_budget_user *dice_budget_find(kuid_t uid)
{
	struct dice_budget_user *u;

	hash_for_each_possible(dice_budget_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/*
 * Give back @bytes of a charge to @u (NULL: nothing), and with @last the
 * charge itself, which frees @u with its last one.
 */
static void dice_budget_uncharge(struct dice_budget_user *u, size_t bytes,
				 bool last)
{
	bool gone = false;

	if (!u)
		return;
	spin_lock(&dice_budget_lock);
	u->held -= bytes;
	if (last && !--u->charges) {
		hash_del(&u->node);
		gone = true;
	}
	spin_unlock(&dice_budget_lock);
	atomic_long_sub(bytes, &dice_tables_held);
	if (gone)
		kfree(u);
}

/*
 * Whom a table is charged to: the caller's uid, or, inside a user
 * namespace that a user other than root made, that user, the owner of the
 * outermost such namespace.  Otherwise a user who maps uids of its own into
 * a namespace (subordinate uids, as rootless containers do) would hold a
 * budget for each; ucounts charge RLIMIT_* limits up the same chain.  The
 * uids that root maps into the namespaces it makes (a container runtime's)
 * are users of their own: charged to root, every container of the machine
 * would share one budget, and one container's tables would deny the rest.
 */
static kuid_t dice_budget_owner(void)
{
	const struct user_namespace *ns;
	kuid_t uid = current_uid();

	for (ns = current_user_ns(); ns != &init_user_ns; ns = ns->parent)
		if (!uid_eq(ns->owner, GLOBAL_ROOT_UID))
			uid = ns->owner;
	return uid;
}

/*
 * Charge @bytes to the calling user's part of the tables' budget
 * (dice_table_limit a user).  Over it only CAP_SYS_RESOURCE goes on (asked
 * then only, as for pipes).  Each charge is given back by
 * dice_budget_uncharge() with @last set, in one call or in several.
 *
 * Return: the user charged, or NULL if refused or out of memory.
 */
static struct dice_budget_user *dice_budget_charge(size_t bytes)
{
	struct dice_budget_user *u, *fresh;
	kuid_t uid = dice_budget_owner();
	bool fits;

	fresh = kzalloc_obj(*fresh, GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return NULL;
	spin_lock(&dice_budget_lock);
	u = dice_budget_find(uid);
	if (!u) {
		u = fresh;
		fresh = NULL;
		u->uid = uid;
		hash_add(dice_budget_users, &u->node, __kuid_val(uid));
	}
	/* The charge holds the entry while capable() is asked, unlocked. */
	u->charges++;
	fits = u->held + bytes <= dice_table_limit;
	if (fits)
		u->held += bytes;
	spin_unlock(&dice_budget_lock);
	kfree(fresh);
	if (!fits) {
		if (!capable(CAP_SYS_RESOURCE)) {
			dice_budget_uncharge(u, 0, true);
			return NULL;
		}
		spin_lock(&dice_budget_lock);
		u->held += bytes;
		spin_unlock(&dice_budget_lock);
	}
	atomic_long_add(bytes, &dice_tables_held);
	return u;
}

/* series: end */

/* ---- bit sources ------------------------------------------------------------ */

/*
 * CRNG words as a read needs them: one get_random_u64() word for the first
 * fill of a read call (served from per-CPU batches that random.c itself
 * drops on a reseed), then batches of get_random_bytes() that double up to
 * DICE_CRNG_BATCH words while the same call goes on rolling.  When the call
 * returns the file keeps at most DICE_CRNG_KEEP unspent bits and drops the
 * rest (dice_crng_settle()): a module cannot see a reseed (the CRNG
 * generation is not exported), so no more than a read's own use waits
 * between reads; nor does what a die drew for rolls not yet asked for
 * (dice_stream_trim()).  A one-roll read of a d6 draws one word
 * and drops nothing; under DICE_METHOD_BATCH it draws a whole batch and
 * drops the rest of it.
 *
 * Reads wait for the CRNG before they roll (dice_lock_read()); a source
 * switched to the CRNG while a read had dropped the lock meets this check
 * instead, so no roll ever takes bits from an unseeded CRNG.
 */
#define DICE_CRNG_BATCH	16	/* words: 1 KiB bits a fill at most */
#define DICE_CRNG_KEEP	127	/* bits: under two words, what a take may need */

static int dice_fill_crng(void *ctx, u64 *words, unsigned int nwords)
{
	struct dice_file *df = ctx;
	unsigned int n = min(nwords, df->crng_words);

	if (unlikely(!rng_is_initialized()))
		return -EAGAIN;
	if (n == 1)
		words[0] = get_random_u64();
	else
		get_random_bytes(words, n * sizeof(*words));
	df->crng_words = min(2 * n, DICE_CRNG_BATCH);
	return n;
}

/* Under the lock, when a read call returns or yields: see above. */
static void dice_crng_settle(struct dice_file *df)
{
	df->crng_words = 1;
	if (df->source == DICE_SRC_KERNEL)
		dice_stream_trim(df->stream, DICE_CRNG_KEEP);
	dice_stream_scrub(df->stream);
}

/* ---- VM forks ------------------------------------------------------------------ */

/*
 * A VM snapshot restored twice gives two machines with the same memory:
 * each open file's buffered CRNG bits, recycled state and encoded rolls.
 * The kernel reseeds its CRNG when it learns of the fork (vmgenid) and
 * calls this notifier; every file rolled from the CRNG then drops what it
 * holds before its next roll, so the clones roll different dice (as
 * WireGuard drops its keys and the CRNG its batched entropy).
 */
static atomic_t dice_vm_forks = ATOMIC_INIT(0);

static int dice_vm_forked(struct notifier_block *nb, unsigned long action,
			  void *data)
{
	atomic_inc(&dice_vm_forks);
	return NOTIFY_DONE;
}

static struct notifier_block dice_vmfork_nb = {
	.notifier_call = dice_vm_forked,
};

/*
 * A hibernation image can be restored more than once, and its memory
 * holds every file's state as a VM snapshot does: treat a restore as a
 * fork.  The restored kernel goes on past hibernate() and sends
 * PM_POST_HIBERNATION (also when a hibernation fails, where a drop is
 * merely early).  Best effort, bounded by the CRNG: random.c mixes the
 * resume into its input pool there but does not reseed the restored
 * CRNG at once, and processes are thawed just before the notification.
 */
static int dice_pm_event(struct notifier_block *nb, unsigned long action,
			 void *data)
{
	if (action == PM_POST_HIBERNATION)
		atomic_inc(&dice_vm_forks);
	return NOTIFY_DONE;
}

static struct notifier_block dice_pm_nb = {
	.notifier_call = dice_pm_event,
};

/*
 * Under the lock, before each chunk a read produces and copies, so that a
 * read in flight when the VM forks serves nothing made before the fork
 * after the chunk it was copying.  Written bits belong to the user and
 * stay; of the rolls encoded, only the rest of a text line already partly
 * read is kept (dice_stream_drop_random()).
 */
static void dice_check_fork(struct dice_file *df)
{
	unsigned int forks = atomic_read(&dice_vm_forks);

	if (likely(df->forks == forks))
		return;
	df->forks = forks;
	if (df->source != DICE_SRC_KERNEL)
		return;
	dice_stream_drop_random(df->stream);
}

/* ---- open/release ------------------------------------------------------------- */

/*
 * Under the file's lock: the die, made on first use.  A read that must not
 * block (IOCB_NOWAIT: io_uring, RWF_NOWAIT) makes it without sleeping, or
 * gets -EAGAIN and is retried where it may.
 */
static int dice_file_ready(struct dice_file *df, bool nowait)
{
	if (likely(df->stream))
		return 0;
	df->stream = dice_stream_alloc_gfp(dice_fill_crng, df, nowait ?
					   GFP_NOWAIT | __GFP_ACCOUNT |
					   __GFP_NOWARN :
					   GFP_KERNEL_ACCOUNT);
	if (df->stream)
		return 0;
	return nowait ? -EAGAIN : -ENOMEM;
}

/* Take the file for an ioctl: killably, its die made if need be. */
static int dice_lock_die(struct dice_file *df)
{
	int err = mutex_lock_killable(&df->lock);

	if (err)
		return err;
	err = dice_file_ready(df, false);
	if (err)
		mutex_unlock(&df->lock);
	return err;
}

static int dice_file_open(struct inode *inode, struct file *file)
{
	struct dice_file *df;

	/*
	 * misc_open() calls this under misc_mtx, which every open of every
	 * misc device takes: only the small struct here, the die (4 KiB)
	 * on first use (dice_file_ready()).
	 */
	df = kzalloc_obj(*df, GFP_KERNEL_ACCOUNT);
	if (!df)
		return -ENOMEM;
	mutex_init(&df->lock);
	init_waitqueue_head(&df->wait);
	df->crng_words = 1;
	df->source = DICE_SRC_KERNEL;
	df->forks = atomic_read(&dice_vm_forks);
	file->private_data = df;
	file->f_mode |= FMODE_NOWAIT;
	atomic_long_inc(&dice_open_count);
	return 0;
}

static int dice_file_release(struct inode *inode, struct file *file)
{
	struct dice_file *df = file->private_data;

	dice_stream_free(df->stream);
	/* series: loaded */
	dice_budget_uncharge(df->table_user, df->table_cost, true);
	/* series: end */
	mutex_destroy(&df->lock);
	kfree_sensitive(df);
	atomic_long_dec(&dice_open_count);
	return 0;
}

/* ---- locking and readiness ------------------------------------------------------ */

#define DICE_POLL_IN	(EPOLLIN | EPOLLRDNORM)
#define DICE_POLL_OUT	(EPOLLOUT | EPOLLWRNORM)

/*
 * Drop the file's lock and wake pollers for @events, which the change just
 * made may have brought.  wq_has_sleeper() pairs with the barrier in
 * dice_poll(): a poller either sees the change or is woken.
 */
static void dice_unlock(struct dice_file *df, __poll_t events)
{
	mutex_unlock(&df->lock);
	if (events && wq_has_sleeper(&df->wait))
		wake_up_interruptible_poll(&df->wait, events);
}

/*
 * Pollers before the CRNG is seeded wait here.  A module cannot wait on
 * random.c's own queue, and random.c exports no seeding notifier; so while
 * someone polls an unseeded CRNG a delayed work looks every 100 ms, and
 * wakes them once it is seeded.  It runs only
 * before the CRNG is ready, and module exit cancels it.
 */
static DECLARE_WAIT_QUEUE_HEAD(dice_crng_wait);

static void dice_crng_watch(struct work_struct *work);
static DECLARE_DELAYED_WORK(dice_crng_work, dice_crng_watch);

static void dice_crng_watch(struct work_struct *work)
{
	if (rng_is_initialized())
		wake_up_interruptible_poll(&dice_crng_wait, DICE_POLL_IN);
	else if (wq_has_sleeper(&dice_crng_wait))
		schedule_delayed_work(&dice_crng_work, HZ / 10);
}

/*
 * poll() changes nothing: no allocation, no roll, no discard.  A file
 * rolled from the CRNG is readable once the CRNG is seeded (before that a
 * blocking read waits for it and a non-blocking one fails with -EAGAIN)
 * and never writable (write() fails with -EINVAL).  A file of written
 * bits is readable when bytes wait or the next roll can be made from the
 * bits buffered (dice_stream_probe(), on a scratch copy of the die), or
 * when the bits fill the pool and can never roll (the read that follows
 * drops them and fails with -EAGAIN); it is writable when the pool has
 * room for a whole byte, which is when write() accepts one.  While another
 * thread holds the file, poll() does not wait for it and says both: the
 * read or write that follows waits for the lock and then tells.
 */
static __poll_t dice_file_poll(struct file *file, poll_table *wait)
{
	struct dice_file *df = file->private_data;
	__poll_t mask = 0, crng_in;
	bool wedged;
	int err;

	poll_wait(file, &df->wait, wait);
	/*
	 * Whatever the source now: SET_SOURCE may switch to the CRNG later,
	 * and epoll registers its wait queues only on the first poll.
	 * Seeding never reverts.
	 */
	if (!rng_is_initialized()) {
		poll_wait(file, &dice_crng_wait, wait);
		schedule_delayed_work(&dice_crng_work, HZ / 10);
	}
	/* Pairs with wq_has_sleeper() in dice_unlock() and the CRNG work. */
	smp_mb();
	crng_in = rng_is_initialized() ? DICE_POLL_IN : 0;
	/* Only the test hook makes another source: dead code without it. */
	if (!IS_ENABLED(CONFIG_RANDOM_DICE_TEST_HOOKS) ||
	    READ_ONCE(df->source) == DICE_SRC_KERNEL)
		return crng_in;
	if (!mutex_trylock(&df->lock))
		return DICE_POLL_IN | DICE_POLL_OUT;
	if (df->source != DICE_SRC_WRITTEN) {
		mask = crng_in;
	} else {
		err = dice_stream_probe(df->stream, &wedged);
		if (err != -EAGAIN || wedged)
			mask |= DICE_POLL_IN;
		if (dice_stream_room(df->stream))
			mask |= DICE_POLL_OUT;
	}
	mutex_unlock(&df->lock);
	return mask;
}

/* ---- read ------------------------------------------------------------------------ */

/*
 * Take the file for a read.  A file rolled from the CRNG first waits for it
 * to be seeded; the source is looked at under the lock, so a SET_SOURCE
 * racing with the read cannot make it skip the wait.  Once seeded the CRNG
 * stays so: the loop turns at most twice.
 */
static int dice_lock_read(struct dice_file *df, struct kiocb *iocb,
			  bool nowait)
{
	int err;

	for (;;) {
		if (iocb->ki_flags & IOCB_NOWAIT) {
			if (!mutex_trylock(&df->lock))
				return -EAGAIN;
		} else if (mutex_lock_interruptible(&df->lock)) {
			return -ERESTARTSYS;
		}
		if (df->source != DICE_SRC_KERNEL || rng_is_initialized())
			return 0;
		mutex_unlock(&df->lock);
		if (nowait)
			return -EAGAIN;
		err = wait_for_random_bytes();
		if (err)
			return err;
	}
}

static size_t dice_copy_to_iter(void *ctx, const u8 *bytes, size_t len)
{
	return copy_to_iter(bytes, len, ctx);
}

/* A read spends bits: on a file of written bits, that makes room for more. */
static __poll_t dice_read_wakes(const struct dice_file *df)
{
	return df->source == DICE_SRC_WRITTEN ? DICE_POLL_OUT : 0;
}

static ssize_t dice_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *file = iocb->ki_filp;
	struct dice_file *df = file->private_data;
	struct dice_stream *stream;
	bool nowait = (iocb->ki_flags & IOCB_NOWAIT) ||
		      (file->f_flags & O_NONBLOCK);
	struct dice_read read = {
		.len = iov_iter_count(to),
		.copy = dice_copy_to_iter,
		.ctx = to,
	};
	unsigned int changes;
	ssize_t err;

	if (!read.len)
		return 0;
	err = dice_lock_read(df, iocb, nowait);
	if (err)
		return err;
	err = dice_file_ready(df, iocb->ki_flags & IOCB_NOWAIT);
	if (err) {
		mutex_unlock(&df->lock);
		return err;
	}
	stream = df->stream;
	dice_check_fork(df);
	changes = df->changes;
	err = dice_stream_read_size(stream, &read.len);
	while (!err && read.done < read.len) {
		dice_check_fork(df);
		err = dice_stream_read_chunk(stream, &read);
		if (err) {
			/*
			 * A binary read returns whole rolls only: the bytes
			 * of a torn roll are taken back (a pipe of splice()
			 * gives them up) and not counted.
			 */
			iov_iter_revert(to, read.torn);
			break;
		}
		if (read.done == read.len)
			break;
		if (signal_pending(current)) {
			err = -ERESTARTSYS;
			break;
		}
		if (need_resched()) {
			if (iocb->ki_flags & IOCB_NOWAIT)
				break;
			dice_crng_settle(df);
			dice_report(df);
			dice_unlock(df, dice_read_wakes(df));
			cond_resched();
			if (mutex_lock_interruptible(&df->lock))
				return read.done ? read.done : -ERESTARTSYS;
			/*
			 * A new die or source while the lock was dropped:
			 * one read serves the rolls of one die, in one format.
			 */
			if (df->changes != changes) {
				if (read.done)
					break;
				changes = df->changes;
				read.len = iov_iter_count(to);
				err = dice_stream_read_size(stream, &read.len);
			}
		}
	}
	dice_crng_settle(df);
	dice_report(df);
	dice_unlock(df, dice_read_wakes(df));
	return read.done ? read.done : err;
}

/* ---- write: bits for DICE_SRC_WRITTEN --------------------------------------------- */

/*
 * Bytes written become bits for later rolls, most significant bit first.
 * Writes never block: when the buffer is full, read rolls to make room.
 */
static ssize_t dice_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct dice_file *df = iocb->ki_filp->private_data;
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
				    dice_stream_room(df->stream));
		size_t copied;

		if (!chunk)
			break;
		copied = copy_from_iter(buf, chunk, from);
		done += dice_stream_write(df->stream, buf, copied);
		if (copied != chunk) {
			err = -EFAULT;
			break;
		}
	}
	if (!done && !err)
		err = -EAGAIN;
	dice_report(df);
out_unlock:
	dice_unlock(df, done ? DICE_POLL_IN : 0);
	memzero_explicit(buf, sizeof(buf));
	return done ? done : err;
}

/* ---- ioctls ------------------------------------------------------------------------ */

/*
 * The ioctls wait for the file's lock killably, as reads do.  Readiness
 * may change with the die: every change wakes pollers.
 */
#define DICE_POLL_ANY	(DICE_POLL_IN | DICE_POLL_OUT)

/* series: loaded */
/*
 * A table's arrays in from userspace: up to 8 bytes a side for up to
 * DICE_TABLE_SIDES_MAX sides, 12 MiB for an alias table, which one
 * copy_from_user() would copy without a pause.  In 1 MiB steps with a
 * check for a fatal signal and cond_resched() between, as the table's
 * build (dice_yield_or_stop() says why only a fatal one).
 */
static int dice_copy_table_in(void *dst, u64 src, size_t len)
{
	const u8 __user *from = u64_to_user_ptr(src);
	size_t done, step;

	for (done = 0; done < len; done += step) {
		if (done) {
			if (fatal_signal_pending(current))
				return -ERESTARTSYS;
			cond_resched();
		}
		step = min_t(size_t, len - done, SZ_1M);
		if (copy_from_user((u8 *)dst + done, from + done, step))
			return -EFAULT;
	}
	return 0;
}

/*
 * Build the table of a loaded die from its weights or its alias table, and
 * pack it, under a reserve of the budget of what the build may hold at most
 * (dice_build_cost()): the table and the weights, or the table and its
 * packed copy.  On success *@reserve is charged to *@user, the caller;
 * on error nothing is.
 *
 * Return: the table, or an ERR_PTR: -ENOMEM over the caller's budget or
 * without memory, or the errors of the copy and of the table's checks.
 */
static struct dice_table *dice_table_read(const struct dice_die_args *arg,
					  size_t *reserve,
					  struct dice_budget_user **user)
{
	u32 sides = arg->sides;
	struct dice_table *table;
	u32 *weights = NULL;
	int err;

	*reserve = dice_build_cost(sides);
	*user = dice_budget_charge(*reserve);
	if (!*user)
		return ERR_PTR(-ENOMEM);
	table = dice_table_alloc(sides);
	if (!table) {
		err = -ENOMEM;
		goto out_uncharge;
	}
	if (arg->kind == DICE_KIND_WEIGHTS) {
		weights = dice_table_mem(array_size(sides, sizeof(*weights)));
		err = weights ? dice_copy_table_in(weights, arg->weights,
						   sides * sizeof(*weights)) :
				-ENOMEM;
		if (!err)
			err = dice_table_from_weights(table, weights);
		kvfree(weights);
	} else {
		err = dice_copy_table_in(dice_table_thresholds(table),
					 arg->thresholds, sides * sizeof(u64));
		if (!err)
			err = dice_copy_table_in(dice_table_aliases(table),
						 arg->aliases,
						 sides * sizeof(u32));
		if (!err)
			err = dice_table_from_alias(table, arg->mass);
	}
	if (!err) {
		/*
		 * Packed here, outside the file's lock, where a fatal signal
		 * stops it (dice_table_pack()); the die would pack it under the
		 * lock.
		 */
		table = dice_table_pack(table);
		if (fatal_signal_pending(current))
			err = -ERESTARTSYS;
	}
	if (!err)
		return table;
	dice_table_free(table);
out_uncharge:
	dice_budget_uncharge(*user, *reserve, true);
	*user = NULL;
	return ERR_PTR(err);
}

/*
 * The whole die in one step (dice_stream_set_die()): checked, its table
 * built outside the lock, then installed.  The file keeps the charge for
 * its table as held (packed or not), to the caller's budget, and gives
 * back the rest of the reserve, and the charge of the table it replaced to
 * whoever set that one.  The rest goes back under the file's lock: once
 * the lock is dropped the charge is the file's, and another SET_DIE on it
 * may give it back, with the user's entry.
 */
static long dice_ioctl_set_die(struct dice_file *df, void __user *uarg)
{
	struct dice_budget_user *user = NULL, *old_user = NULL;
	size_t reserve = 0, old_cost = 0;
	struct dice_table *table = NULL;
	struct dice_die_args arg;
	bool kept;
	int err;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	err = dice_die_args_check(&arg);
	if (err)
		return err;
	if (arg.kind != DICE_KIND_FAIR) {
		table = dice_table_read(&arg, &reserve, &user);
		if (IS_ERR(table))
			return PTR_ERR(table);
	}
	err = dice_lock_die(df);
	if (err) {
		dice_table_free(table);
		goto out_uncharge;
	}
	/* The die owns the table from here on, and frees it on error. */
	err = dice_stream_set_die(df->stream, arg.sides, table, arg.method,
				  arg.format);
	if (!err) {
		df->changes++;
		old_user = df->table_user;
		old_cost = df->table_cost;
		/* No more than the build's reserve (dice_build_cost()). */
		df->table_cost = dice_held_cost(dice_stream_die(df->stream));
		kept = df->table_cost && user;
		df->table_user = kept ? user : NULL;
		dice_budget_uncharge(user, reserve - df->table_cost, !kept);
		user = NULL;
	}
	dice_unlock(df, err ? 0 : DICE_POLL_ANY);
	dice_budget_uncharge(old_user, old_cost, true);
out_uncharge:
	/* A failed call's own charge, which no file has seen. */
	dice_budget_uncharge(user, reserve, true);
	return err;
}

#ifdef DICE_SERIES_CUT /* series: not loaded */
/* The whole die in one step (dice_stream_set_die()), checked first. */
static long dice_ioctl_set_die(struct dice_file *df, void __user *uarg)
{
	struct dice_die_args arg;
	int err;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	err = dice_die_args_check(&arg);
	if (err)
		return err;
	err = dice_lock_die(df);
	if (err)
		return err;
	err = dice_stream_set_die(df->stream, arg.sides, arg.method,
				  arg.format);
	if (!err)
		df->changes++;
	dice_unlock(df, err ? 0 : DICE_POLL_ANY);
	return err;
}

#endif /* series: end */

static long dice_ioctl_get_die(struct dice_file *df, void __user *uarg)
{
	struct dice_die_info info;
	int err;

	err = dice_lock_die(df);
	if (err)
		return err;
	dice_stream_info(df->stream, &info);
	mutex_unlock(&df->lock);
	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long dice_ioctl_get_stats(struct dice_file *df, void __user *uarg)
{
	struct dice_die_stats stats;
	int err;

	err = dice_lock_die(df);
	if (err)
		return err;
	dice_die_stats(dice_stream_die(df->stream), &stats);
	mutex_unlock(&df->lock);
	return copy_to_user(uarg, &stats, sizeof(stats)) ? -EFAULT : 0;
}

/*
 * The test hook (CONFIG_RANDOM_DICE_TEST_HOOKS): a new source drops every
 * bit and roll of the old one (dice_stream_set_source()).
 */
static long dice_ioctl_set_source(struct dice_file *df, u32 __user *uarg)
{
	u32 source;
	int err;

	if (get_user(source, uarg))
		return -EFAULT;
	if (source != DICE_SRC_KERNEL && source != DICE_SRC_WRITTEN)
		return -EINVAL;
	err = dice_lock_die(df);
	if (err)
		return err;
	err = dice_stream_set_source(df->stream, source == DICE_SRC_KERNEL ?
				     dice_fill_crng : NULL, df);
	if (!err) {
		df->changes++;
		WRITE_ONCE(df->source, source);
		dice_report(df);
	}
	dice_unlock(df, err ? 0 : DICE_POLL_ANY);
	return err;
}

static long dice_file_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct dice_file *df = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case DICE_IOC_SET_DIE:
		return dice_ioctl_set_die(df, uarg);
	case DICE_IOC_GET_DIE:
		return dice_ioctl_get_die(df, uarg);
	case DICE_IOC_GET_STATS:
		return dice_ioctl_get_stats(df, uarg);
	case DICE_IOC_SET_SOURCE:
		if (!IS_ENABLED(CONFIG_RANDOM_DICE_TEST_HOOKS))
			break;
		return dice_ioctl_set_source(df, uarg);
	}
	return -ENOTTY;
}

/* ---- module init ---------------------------------------------------------------------- */

static const struct file_operations dice_fops = {
	.owner = THIS_MODULE,
	.open = dice_file_open,
	.release = dice_file_release,
	.read_iter = dice_file_read_iter,
	/* Without the test hook no file takes bits: write() fails, EINVAL. */
	.write_iter = IS_ENABLED(CONFIG_RANDOM_DICE_TEST_HOOKS) ?
		      dice_file_write_iter : NULL,
	.poll = dice_file_poll,
	.splice_read = copy_splice_read,
	.unlocked_ioctl = dice_file_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice dice_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "dice",
	.fops = &dice_fops,
	.mode = 0666,
};

static int __init dice_init(void)
{
	int err;

	/* series: loaded */
	dice_table_limit = (totalram_pages() << PAGE_SHIFT) / 8;
	/* series: end */
	dice_counters = alloc_percpu(struct dice_counters);
	if (!dice_counters)
		return -ENOMEM;
	dice_debugfs_init();
	err = register_random_vmfork_notifier(&dice_vmfork_nb);
	if (err)
		goto err_free;
	err = register_pm_notifier(&dice_pm_nb);
	if (err)
		goto err_vmfork;
	err = misc_register(&dice_misc);
	if (err)
		goto err_pm;
	return 0;

err_pm:
	unregister_pm_notifier(&dice_pm_nb);
err_vmfork:
	unregister_random_vmfork_notifier(&dice_vmfork_nb);
err_free:
	debugfs_remove_recursive(dice_debugfs);
	free_percpu(dice_counters);
	return err;
}

static void __exit dice_exit(void)
{
	misc_deregister(&dice_misc);
	cancel_delayed_work_sync(&dice_crng_work);
	unregister_pm_notifier(&dice_pm_nb);
	unregister_random_vmfork_notifier(&dice_vmfork_nb);
	debugfs_remove_recursive(dice_debugfs);
	/* series: loaded */
	/* Every file is closed, so every table charge is given back. */
	WARN_ONCE(atomic_long_read(&dice_tables_held), "%ld bytes still charged",
		  atomic_long_read(&dice_tables_held));
	/* ... and with its last charge every user's entry went. */
	WARN_ON_ONCE(!hash_empty(dice_budget_users));
	/* series: end */
	free_percpu(dice_counters);
}

module_init(dice_init);
module_exit(dice_exit);

/* series: loaded */
MODULE_DESCRIPTION("Fair and loaded dice at the entropy bound: /dev/dice");
#ifdef DICE_SERIES_CUT /* series: not loaded */
MODULE_DESCRIPTION("Fair dice at the entropy bound: /dev/dice");
#endif /* series: end */
MODULE_AUTHOR("dice maintainers <maintainers@users.noreply.a-seed-e5ea7db1.example>");
MODULE_LICENSE("GPL");
