package io.rediacc.gpu.gate.pinning;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;

/**
 * The few C library calls pinning needs (x86_64 Linux). Each throws {@link LastErrorException}
 * carrying {@code errno} when the call fails. {@code syscall} reaches what glibc may not wrap
 * ({@code openat2}, Linux 5.6) and {@code openat} without its variadic mode argument.
 */
interface LibC extends Library {

    LibC C = Native.load("c", LibC.class);

    long SYS_OPENAT = 257;
    long SYS_MKDIRAT = 258;
    long SYS_OPENAT2 = 437;

    int O_RDONLY = 0;
    int O_DIRECTORY = 0x10000;
    int O_NOFOLLOW = 0x20000;
    int O_CLOEXEC = 0x80000;
    int O_PATH = 0x200000;

    long RESOLVE_NO_MAGICLINKS = 0x02;
    long RESOLVE_NO_SYMLINKS = 0x04;
    long RESOLVE_BENEATH = 0x08;

    long MS_BIND = 0x1000;
    long MS_PRIVATE = 0x40000;
    int MNT_DETACH = 2;
    int UMOUNT_NOFOLLOW = 8;

    int ENOENT = 2;
    int EEXIST = 17;
    int EINVAL = 22;
    int ENOTDIR = 20;
    int ELOOP = 40;
    int ENOSYS = 38;
    int EXDEV = 18;
    int EPERM = 1;
    int EACCES = 13;
    int E2BIG = 7;
    int EAGAIN = 11;

    int open(String path, int flags) throws LastErrorException;

    long syscall(long number, Object... args) throws LastErrorException;

    int mount(String source, String target, String fstype, NativeLong flags, Pointer data) throws LastErrorException;

    int umount2(String target, int flags) throws LastErrorException;

    int close(int fd) throws LastErrorException;
}
