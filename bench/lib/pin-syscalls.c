/* The floor of a pinned bind (issue 34): the system calls the gate makes to pin one bind source and to
 * remove the pin again, from C, with nothing else around them — openat2 beneath the root, readlink of the
 * descriptor, stat, mkdir of the target, mount(2) MS_BIND + MS_PRIVATE, stat of the target, close; then
 * umount2(MNT_DETACH) and rmdir. Prints the CPU (user + system) per pin and per removal.
 *   pin-syscalls ROOT REL PIN-DIR COUNT      (as root; PIN-DIR is made a private mount, as the gate's pin root) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct open_how_ { uint64_t flags, mode, resolve; };

static double cpu_us(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + u.ru_utime.tv_usec + u.ru_stime.tv_usec;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: %s ROOT REL PIN-DIR COUNT\n", argv[0]); return 2; }
    const char *rel = argv[2], *dir = argv[3];
    int n = atoi(argv[4]);
    mkdir(dir, 0700);
    if (mount(dir, dir, NULL, MS_BIND, NULL) || mount(NULL, dir, NULL, MS_PRIVATE, NULL)) { perror("private pin dir"); return 1; }
    int root = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0) { perror("root"); return 1; }
    char target[4096], fdpath[64], physical[4096];
    struct stat st;
    double t0 = cpu_us();
    for (int i = 0; i < n; i++) {
        struct open_how_ how = { O_PATH | O_CLOEXEC, 0, 0x08 | 0x02 }; /* RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS */
        int fd = (int) syscall(437, root, rel, &how, sizeof how);
        if (fd < 0) { perror("openat2"); return 1; }
        snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
        if (readlink(fdpath, physical, sizeof physical) < 0 || stat(fdpath, &st)) { perror("readlink/stat"); return 1; }
        snprintf(target, sizeof target, "%s/p%d", dir, i);
        if (mkdir(target, 0700) || mount(fdpath, target, NULL, MS_BIND, NULL) || mount(NULL, target, NULL, MS_PRIVATE, NULL)) {
            perror("pin"); return 1;
        }
        if (stat(target, &st)) { perror("stat target"); return 1; }
        close(fd);
    }
    double t1 = cpu_us();
    for (int i = 0; i < n; i++) {
        snprintf(target, sizeof target, "%s/p%d", dir, i);
        if (umount2(target, MNT_DETACH | UMOUNT_NOFOLLOW) || rmdir(target)) { perror("unpin"); return 1; }
    }
    double t2 = cpu_us();
    umount2(dir, MNT_DETACH);
    printf("pin-syscalls: %d pins: %.1f µs CPU per pin, %.1f µs per removal (umount2 MNT_DETACH + rmdir)\n",
           n, (t1 - t0) / n, (t2 - t1) / n);
    return 0;
}
