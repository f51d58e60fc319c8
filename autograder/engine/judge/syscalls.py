"""The system calls a jailed child may make, by name, with their numbers on x86_64 and aarch64 (None where
an architecture has no such call): an allow-list, as Docker's and nsjail's default profiles are. jail.py's
seccomp filter refuses every other call with EPERM.

What a child needs to run Python, torch and numpy, and no more: files (in the jail's own view), memory,
threads and processes (inside its own pid namespace, bounded by the watchdog), signals, time, and the
socket pair it already holds. Not here, so refused: the kernel's key rings (add_key, keyctl, request_key),
ptrace and process_vm_readv/writev, bpf, userfaultfd, io_uring, perf_event_open, new namespaces (unshare,
setns, mount, pivot_root), System V IPC and POSIX message queues (channels that outlive a child), new
sockets (socket, connect, bind, listen: the jail has no network), pidfd_getfd, kcmp, modules, reboot and the
rest. The numbers are the kernel's ABI; tests/test_policy.py checks them against the system's headers.
"""

ALLOWED = {
    "access": (21, None), "alarm": (37, None), "arch_prctl": (158, None), "brk": (12, 214), "capget": (125, 90),
    "chdir": (80, 49), "chmod": (90, None), "clock_getres": (229, 114), "clock_gettime": (228, 113),
    "clock_nanosleep": (230, 115), "clone": (56, 220), "clone3": (435, 435), "close": (3, 57),
    "close_range": (436, 436), "dup": (32, 23), "dup2": (33, None), "dup3": (292, 24), "epoll_create1": (291, 20),
    "epoll_ctl": (233, 21), "epoll_pwait": (281, 22), "epoll_wait": (232, None), "eventfd2": (290, 19),
    "execve": (59, 221), "exit": (60, 93), "exit_group": (231, 94), "faccessat": (269, 48), "faccessat2": (439, 439),
    "fchdir": (81, 50), "fchmod": (91, 52), "fchmodat": (268, 53), "fcntl": (72, 25), "fdatasync": (75, 83),
    "fork": (57, None), "fstat": (5, 80), "fstatfs": (138, 44), "fsync": (74, 82), "ftruncate": (77, 46),
    "futex": (202, 98), "get_mempolicy": (239, 236), "getcpu": (309, 168), "getcwd": (79, 17),
    "getdents64": (217, 61), "getegid": (108, 177), "geteuid": (107, 175), "getgid": (104, 176),
    "getgroups": (115, 158), "getitimer": (36, 102), "getpeername": (52, 205), "getpgid": (121, 155),
    "getpgrp": (111, None), "getpid": (39, 172), "getppid": (110, 173), "getrandom": (318, 278),
    "getresgid": (120, 150), "getresuid": (118, 148), "getrlimit": (97, 163), "getrusage": (98, 165),
    "getsid": (124, 156), "getsockname": (51, 204), "getsockopt": (55, 209), "gettid": (186, 178),
    "gettimeofday": (96, 169), "getuid": (102, 174), "ioctl": (16, 29), "kill": (62, 129), "link": (86, None),
    "linkat": (265, 37), "lseek": (8, 62), "lstat": (6, None), "madvise": (28, 233), "mbind": (237, 235),
    "memfd_create": (319, 279), "mincore": (27, 232), "mkdir": (83, None), "mkdirat": (258, 34), "mmap": (9, 222),
    "mprotect": (10, 226), "mremap": (25, 216), "msync": (26, 227), "munmap": (11, 215), "nanosleep": (35, 101),
    "newfstatat": (262, 79), "open": (2, None), "openat": (257, 56), "pause": (34, None), "pipe": (22, None),
    "pipe2": (293, 59), "poll": (7, None), "ppoll": (271, 73), "prctl": (157, 167), "pread64": (17, 67),
    "prlimit64": (302, 261), "pselect6": (270, 72), "pwrite64": (18, 68), "read": (0, 63), "readlink": (89, None),
    "readlinkat": (267, 78), "readv": (19, 65), "recvfrom": (45, 207), "recvmsg": (47, 212), "rename": (82, None),
    "renameat": (264, 38), "renameat2": (316, 276), "restart_syscall": (219, 128), "rmdir": (84, None),
    "rseq": (334, 293), "rt_sigaction": (13, 134), "rt_sigprocmask": (14, 135), "rt_sigreturn": (15, 139),
    "rt_sigsuspend": (130, 133), "rt_sigtimedwait": (128, 137), "sched_get_priority_max": (146, 125),
    "sched_get_priority_min": (147, 126), "sched_getaffinity": (204, 123), "sched_getparam": (143, 121),
    "sched_getscheduler": (145, 120), "sched_setaffinity": (203, 122), "sched_yield": (24, 124),
    "select": (23, None), "sendmsg": (46, 211), "sendto": (44, 206), "set_mempolicy": (238, 237),
    "set_robust_list": (273, 99), "set_tid_address": (218, 96), "setitimer": (38, 103), "setpgid": (109, 154),
    "setrlimit": (160, 164), "setsid": (112, 157), "setsockopt": (54, 208), "shutdown": (48, 210),
    "sigaltstack": (131, 132), "socketpair": (53, 199), "stat": (4, None), "statfs": (137, 43), "statx": (332, 291),
    "symlink": (88, None), "symlinkat": (266, 36), "sysinfo": (99, 179), "tgkill": (234, 131), "times": (100, 153),
    "tkill": (200, 130), "truncate": (76, 45), "umask": (95, 166), "uname": (63, 160), "unlink": (87, None),
    "unlinkat": (263, 35), "utimensat": (280, 88), "vfork": (58, None), "wait4": (61, 260), "waitid": (247, 95),
    "write": (1, 64), "writev": (20, 66),
}
