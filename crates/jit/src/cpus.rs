//! Which CPU a thread runs on, and keeping a worker off the launching
//! thread's CPU.
//!
//! When the launching thread wakes a worker, Linux tends to queue the
//! worker on the waker's own CPU (the two share a cache), and moves it to
//! an idle CPU only at a later balancing tick, up to a few milliseconds
//! on. A launch shorter than that then runs on one CPU, the worker waiting
//! behind the thread that does the work: on this machine a 1.2 ms tiled
//! launch took 1.2 ms with two threads as often as not, and 0.6 ms when
//! the worker ran elsewhere. A worker woken ahead of a launch therefore
//! leaves the launching thread's CPU out of the CPUs it may run on (the
//! rest of the process's set), which moves it at once. Elsewhere than on
//! Linux, or when the set would be empty, nothing changes.

// The scheduler's calls are C functions; each use says why it is sound.
#![allow(unsafe_code)]

/// A set of CPUs a thread may run on.
#[derive(Clone, Copy)]
pub(crate) struct CpuSet {
    #[cfg(target_os = "linux")]
    set: libc::cpu_set_t,
}

/// The CPU the calling thread is running on, if the system says.
pub(crate) fn current() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `sched_getcpu` takes no arguments and only reads the
        // calling thread's state.
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

impl CpuSet {
    /// The CPUs the calling thread may run on now.
    pub(crate) fn of_this_thread() -> Option<CpuSet> {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: a zeroed `cpu_set_t` is a valid empty set, and the
            // call writes at most `size_of::<cpu_set_t>()` bytes into it.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                let got =
                    libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
                (got == 0).then_some(CpuSet { set })
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }

    /// This set without `cpu`, or `None` when nothing would be left (or
    /// `cpu` is past what a set can hold).
    pub(crate) fn without(&self, cpu: usize) -> Option<CpuSet> {
        #[cfg(target_os = "linux")]
        {
            if cpu >= libc::CPU_SETSIZE as usize {
                return None;
            }
            let mut rest = *self;
            // SAFETY: `cpu` is below `CPU_SETSIZE` (checked above), so the
            // bit cleared lies inside the set; counting only reads it.
            let left = unsafe {
                libc::CPU_CLR(cpu, &mut rest.set);
                libc::CPU_COUNT(&rest.set)
            };
            (left > 0).then_some(rest)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = cpu;
            None
        }
    }

    /// Lets the calling thread run on these CPUs only (moving it now if
    /// its CPU is not one of them); a refusal of the system changes
    /// nothing, which is harmless.
    pub(crate) fn apply_to_this_thread(&self) {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: the set is a valid `cpu_set_t` of the size passed.
            let _ = unsafe {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.set)
            };
        }
    }
}
