/* The sandbox's launcher, compiled: what _launch.py does for a jail built by bubblewrap, without an interpreter.
 *
 * Built at first use by arena/sandbox/_native.py (cc -O2), which falls back to _launch.py where no compiler
 * works. A Python launcher cost 15-20 ms a start (the interpreter, ctypes); this one well under a millisecond.
 *
 *   launch [-j FILE]... [-f LEAVE -s STATE -t THAWED] [-r RESOURCE:SOFT:HARD]... [-l FD] [-p BPF_HEX]
 *          [-x DATA_HEX]... [-o LOWER -b EMPTY -m AT] [-e NAME=VALUE]... -d DIR -- BWRAP OPTION... -- ARG...
 *
 * In order, as _launch.main does it for bubblewrap: join each cgroup FILE (0 to a v1 "tasks" file: this one
 * thread moves itself without the kernel's global thread-group lock; else its pid), open the freezer's LEAVE
 * file, set each rlimit, put the seccomp program (BPF, in hex) in a memfd that bubblewrap loads ("--seccomp FD"
 * goes with bubblewrap's options), mount the overlay that shows the bot's folder LOWER at AT (in a mount namespace of
 * its own, its layers named by descriptors: see _launch.overlay_folder; LOWER itself if that fails) for the option
 * "@overlaid", put each DATA (hex) in a memfd for the option "@data:N", and hand bubblewrap all its options in one
 * more memfd ("BWRAP --args FD -- ARG...": the jail's PID 1 then names nothing of the host), then fork: the child dies with this process (PR_SET_PDEATHSIG), enters DIR and
 * executes PROGRAM with exactly the -e environment; this process leaves the bot's freezer, waits for the child
 * as a subreaper, kills it (thawed first) when the lifeline FD reaches end of file (the arena died), kills every
 * orphan left to it, and dies as the child did. A layer that cannot be applied is fatal: exit 121 and a line on
 * stderr.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAYER_FAILED 121

static void fail(const char *what, const char *detail, int err) {
    char line[1024];
    int n = snprintf(line, sizeof line, "arena sandbox: %s%s%s%s%s\n", what, detail ? " " : "", detail ? detail : "",
                     err ? ": " : "", err ? strerror(err) : "");
    if (n > 0) {
        ssize_t ignored = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)ignored;
    }
    _exit(LAYER_FAILED);
}

static int write_text(int fd, const char *text) {
    size_t len = strlen(text);
    return write(fd, text, len) == (ssize_t)len ? 0 : -1;
}

static int ends_with_tasks(const char *path) {
    size_t len = strlen(path);
    return len >= 6 && strcmp(path + len - 6, "/tasks") == 0;
}

/* Move this process into the cgroup of path: "0" to a v1 tasks file (this single thread), else its pid. */
static int join(int fd, const char *path) {
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    return write_text(fd, ends_with_tasks(path) ? "0" : pid);
}

static int wake_w = -1;

static void on_child(int sig) {
    (void)sig;
    int saved = errno;
    ssize_t ignored = write(wake_w, "x", 1);
    (void)ignored;
    errno = saved;
}

/* Reap every child that has ended (orphans come here too); 1 once child ended, its wait status in *status. */
static int reap(pid_t child, int *status, int *found) {
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            if (!*found) {
                *status = LAYER_FAILED << 8;
                *found = 1;
            }
            return 1;
        }
        if (pid == 0)
            return *found;
        if (pid == child) {
            *status = st;
            *found = 1;
        }
    }
}

/* Fill left with this process's children as /proc/self/task/PID/children lists them; their count, or -1. */
static int children(int proc, pid_t *left, int most) {
    char path[64], data[16384];
    snprintf(path, sizeof path, "self/task/%d/children", (int)getpid());
    int fd = openat(proc, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, data, sizeof data - 1);
    close(fd);
    if (n < 0 || n == (ssize_t)sizeof data - 1)
        return -1; /* unreadable, or maybe cut short: walk /proc instead */
    data[n] = '\0';
    int count = 0;
    for (char *word = strtok(data, " \n"); word != NULL && count < most; word = strtok(NULL, " \n"))
        left[count++] = (pid_t)atoi(word);
    return count;
}

/* SIGKILL and reap every process left to this subreaper, until none is left (proc: /proc as this process sees it).
 * None is the rule (the bot's PID namespace died with it): then waitpid says there is no child, and /proc is not
 * read. This process is single-threaded: its one thread's children file names every child, orphans included;
 * where the kernel has no such file, every process's stat is read. */
static void kill_orphans(int proc) {
    char me[32];
    snprintf(me, sizeof me, "%d", (int)getpid());
    for (int round = 0; round < 1000; round++) {
        if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
            return;
        pid_t listed[1024];
        int found = children(proc, listed, 1024);
        if (found == 0)
            continue; /* one may have ended meanwhile: waitpid above reaps it or says none is left */
        if (found > 0) {
            for (int i = 0; i < found; i++)
                kill(listed[i], SIGKILL);
            for (int i = 0; i < found; i++)
                while (waitpid(listed[i], NULL, 0) < 0 && errno == EINTR) {
                }
            continue;
        }
        int dirfd = dup(proc);
        if (dirfd < 0)
            return;
        DIR *dir = fdopendir(dirfd);
        if (dir == NULL) {
            close(dirfd);
            return;
        }
        rewinddir(dir);
        pid_t left[1024];
        int count = 0;
        struct dirent *entry;
        while ((entry = readdir(dir)) != NULL && count < 1024) {
            if (entry->d_name[0] < '1' || entry->d_name[0] > '9')
                continue;
            char path[300], data[1024];
            snprintf(path, sizeof path, "%s/stat", entry->d_name);
            int fd = openat(proc, path, O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                continue;
            ssize_t n = read(fd, data, sizeof data - 1);
            close(fd);
            if (n <= 0)
                continue;
            data[n] = '\0';
            char *end = strrchr(data, ')');
            if (end == NULL || end[1] == '\0' || end[2] == '\0')
                continue;
            char *ppid = strchr(end + 3, ' '); /* ") S PPID ...": after the state */
            if (ppid == NULL)
                continue;
            ppid++;
            size_t len = strlen(me);
            if (strncmp(ppid, me, len) == 0 && ppid[len] == ' ')
                left[count++] = (pid_t)atoi(entry->d_name);
        }
        closedir(dir);
        if (count == 0)
            return;
        for (int i = 0; i < count; i++)
            kill(left[i], SIGKILL);
        for (int i = 0; i < count; i++)
            while (waitpid(left[i], NULL, 0) < 0 && errno == EINTR) {
            }
    }
}

/* The launcher's half after the fork: hold no pipe open, wait, kill what the bot left, die like the bot did. */
static void become_init_parent(pid_t child, int lifeline, int proc, int leave, const char *leave_path,
                               const char *state, const char *thawed) {
    int freezer = 0;
    if (leave >= 0) {
        char pid[32];
        snprintf(pid, sizeof pid, "%d", (int)getpid());
        freezer = write_text(leave, ends_with_tasks(leave_path) ? "0" : pid) == 0 && state && thawed;
        close(leave);
    }
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        for (int fd = 0; fd < 3; fd++)
            dup2(null, fd);
        if (null > 2)
            close(null);
    }
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    int wake[2];
    if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        kill(child, SIGKILL);
        _exit(LAYER_FAILED);
    }
    wake_w = wake[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_child;
    action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &action, NULL);
    int status = 0, found = 0, watching = lifeline >= 0;
    while (!reap(child, &status, &found)) {
        struct pollfd fds[2] = {{wake[0], POLLIN, 0}, {lifeline, POLLIN, 0}};
        int ready = poll(fds, watching ? 2 : 1, 5000);
        if (ready <= 0)
            continue;
        if (fds[0].revents) {
            char buffer[512];
            while (read(wake[0], buffer, sizeof buffer) > 0) {
            }
        }
        if (watching && fds[1].revents) { /* end of file: the arena is gone, so is the bot */
            if (freezer) {
                int fd = open(state, O_WRONLY | O_CLOEXEC);
                if (fd >= 0) {
                    write_text(fd, thawed);
                    close(fd);
                }
            }
            kill(child, SIGKILL);
            watching = 0;
        }
    }
    kill_orphans(proc);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        signal(sig, SIG_DFL);
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, sig);
        sigprocmask(SIG_UNBLOCK, &mask, NULL);
        kill(getpid(), sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : LAYER_FAILED);
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A memfd left open across exec, holding SIZE bytes of DATA from its start; its descriptor. */
static int handed(const void *data, size_t size, const char *what) {
    int fd = memfd_create("arena-jail", 0);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || lseek(fd, 0, SEEK_SET) != 0)
        fail(what, "could not be handed to bubblewrap", errno);
    return fd;
}

/* HEX decoded into a memfd (see handed); UNIT: the decoded size must be a whole number of these bytes. */
static int hex_memfd(const char *hex, size_t unit, const char *what) {
    size_t len = strlen(hex);
    if (len % 2 != 0 || (unit && (len == 0 || (len / 2) % unit != 0)))
        fail(what, "is not whole", 0);
    size_t size = len / 2;
    unsigned char *bytes = malloc(size ? size : 1);
    if (bytes == NULL)
        fail(what, NULL, ENOMEM);
    for (size_t i = 0; i < size; i++) {
        int high = hex_value(hex[2 * i]), low = hex_value(hex[2 * i + 1]);
        if (high < 0 || low < 0)
            fail(what, "is not hex", 0);
        bytes[i] = (unsigned char)(high << 4 | low);
    }
    int fd = handed(bytes, size, what);
    free(bytes);
    return fd;
}

/* The bot's folder LOWER through an overlay at AT whose options name no path of the host (its layers are this
 * process's descriptors), in a mount namespace of this process's own; LOWER itself where that fails. */
static const char *overlay_folder(const char *lower, const char *empty, const char *at) {
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return lower;
    int low = open(lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC), none = open(empty, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const char *shown = lower;
    char options[96];
    if (low >= 0 && none >= 0) {
        snprintf(options, sizeof options, "lowerdir=/proc/self/fd/%d:/proc/self/fd/%d", low, none);
        if (mount("overlay", at, "overlay", MS_NOSUID | MS_NODEV | MS_RDONLY, options) == 0)
            shown = at;
    }
    if (low >= 0)
        close(low);
    if (none >= 0)
        close(none);
    return shown;
}

static unsigned long long number(const char *text, char **end, const char *option) {
    errno = 0;
    unsigned long long value = strtoull(text, end, 10);
    if (errno || *end == text)
        fail("bad argument to", option, 0);
    return value;
}

/* After a failed exec of PROGRAM: say so on stderr (no stdio buffer: the bot's stderr is a pipe) and exit 127. */
__attribute__((noreturn)) static void cannot_run(const char *program) {
    char line[512];
    int len = snprintf(line, sizeof line, "arena sandbox: cannot run '%s': %s\n", program, strerror(errno));
    if (len > 0) {
        ssize_t ignored = write(2, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
        (void)ignored;
    }
    _exit(127);
}

/* The drop to the bot's UID inside the jail, as "setpriv --reuid=UID --regid=GID --clear-groups --inh-caps=-all
 * --bounding-set=-all --" did it, without loading another program: no supplementary groups, the GID and the UID
 * (real, effective, saved), an empty bounding set, no inheritable or ambient capability; the result checked (every
 * ID the bot's, no capability left) before PROGRAM runs. SELF is this binary's descriptor, by which bubblewrap ran it
 * (closed on the exec). */
static void drop_and_run(const char *self, const char *uid_text, const char *gid_text, char **command) {
    char *end;
    int self_fd = (int)number(self, &end, "--drop");
    if (*end != '\0' || fcntl(self_fd, F_SETFD, FD_CLOEXEC) != 0)
        fail("bad descriptor for", "--drop", errno);
    uid_t uid = (uid_t)number(uid_text, &end, "--drop");
    gid_t gid = (gid_t)number(gid_text, &end, "--drop");
    if (uid == 0 || gid == 0)
        fail("will not drop to", "root", 0);
    if (setgroups(0, NULL) != 0)
        fail("setgroups", NULL, errno);
    if (setresgid(gid, gid, gid) != 0)
        fail("setresgid", gid_text, errno);
    for (int cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
            fail("cannot drop a capability from the bounding set", NULL, errno);
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        fail("cannot clear the ambient capabilities", NULL, errno);
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct caps[2];
    if (syscall(SYS_capget, &header, caps) != 0)
        fail("capget", NULL, errno);
    caps[0].inheritable = caps[1].inheritable = 0;
    if (syscall(SYS_capset, &header, caps) != 0)
        fail("cannot clear the inheritable capabilities", NULL, errno);
    if (setresuid(uid, uid, uid) != 0)
        fail("setresuid", uid_text, errno);
    uid_t ruid, euid, suid;
    gid_t rgid, egid, sgid;
    if (getresuid(&ruid, &euid, &suid) != 0 || ruid != uid || euid != uid || suid != uid ||
        getresgid(&rgid, &egid, &sgid) != 0 || rgid != gid || egid != gid || sgid != gid || getgroups(0, NULL) != 0)
        fail("the drop to the bot's IDs did not hold", NULL, 0);
    if (syscall(SYS_capget, &header, caps) != 0)
        fail("capget", NULL, errno);
    for (int k = 0; k < 2; k++)
        if (caps[k].effective || caps[k].permitted || caps[k].inheritable)
            fail("capabilities left after the drop", NULL, 0);
    for (int cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1 || prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) == 1)
            fail("capabilities left after the drop", NULL, 0);
    execvp(command[0], command);
    cannot_run(command[0]);
}

int main(int argc, char **argv) {
    if (argc >= 7 && strcmp(argv[1], "--drop") == 0 && strcmp(argv[5], "--") == 0)
        drop_and_run(argv[2], argv[3], argv[4], argv + 6);
    const char **joins = calloc((size_t)argc, sizeof *joins), **env = calloc((size_t)argc, sizeof *env);
    struct item {
        int resource;
        struct rlimit limit;
    } *limits = calloc((size_t)argc, sizeof *limits);
    const char **data = calloc((size_t)argc, sizeof *data);
    const char *leave_path = NULL, *state = NULL, *thawed = NULL, *seccomp = NULL, *dir = NULL;
    const char *lower = NULL, *empty = NULL, *at = NULL;
    int njoins = 0, nenv = 0, nlimits = 0, ndata = 0, lifeline = -1, i = 1;
    if (joins == NULL || env == NULL || limits == NULL || data == NULL)
        fail("launch", NULL, ENOMEM);
    for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
        const char *option = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (value == NULL || option[0] != '-' || option[1] == '\0' || option[2] != '\0')
            fail("bad arguments at", option, 0);
        switch (option[1]) {
        case 'j':
            joins[njoins++] = value;
            break;
        case 'e':
            env[nenv++] = value;
            break;
        case 'f':
            leave_path = value;
            break;
        case 's':
            state = value;
            break;
        case 't':
            thawed = value;
            break;
        case 'p':
            seccomp = value;
            break;
        case 'd':
            dir = value;
            break;
        case 'x':
            data[ndata++] = value;
            break;
        case 'o':
            lower = value;
            break;
        case 'b':
            empty = value;
            break;
        case 'm':
            at = value;
            break;
        case 'l':
            lifeline = (int)number(value, &end, option);
            break;
        case 'r':
            limits[nlimits].resource = (int)number(value, &end, option);
            if (*end != ':')
                fail("bad argument to", option, 0);
            limits[nlimits].limit.rlim_cur = number(end + 1, &end, option);
            if (*end != ':')
                fail("bad argument to", option, 0);
            limits[nlimits].limit.rlim_max = number(end + 1, &end, option);
            if (*end != '\0')
                fail("bad argument to", option, 0);
            nlimits++;
            break;
        default:
            fail("unknown option", option, 0);
        }
    }
    if (i >= argc - 1 || dir == NULL)
        fail("usage: launch [OPTION VALUE]... -d DIR -- PROGRAM [ARG]...", NULL, 0);
    char **command = argv + i + 1;
    int ncommand = argc - i - 1;
    env[nenv] = NULL;

    for (int k = 0; k < njoins; k++) {
        int fd = open(joins[k], O_WRONLY | O_CLOEXEC);
        if (fd < 0 || join(fd, joins[k]) != 0)
            fail("cannot join cgroup", joins[k], errno);
        close(fd);
    }
    int leave = leave_path ? open(leave_path, O_WRONLY | O_CLOEXEC) : -1;
    for (int k = 0; k < nlimits; k++)
        if (setrlimit(limits[k].resource, &limits[k].limit) != 0) {
            char what[64];
            snprintf(what, sizeof what, "%d=%llu", limits[k].resource, (unsigned long long)limits[k].limit.rlim_cur);
            fail("setrlimit", what, errno);
        }
    /* bubblewrap's options (up to its "--"), with the overlay and the data in place, go in a memfd (--args);
     * a command with no "--" (a plain program: the launcher's own run check, tests) runs as it is given. */
    int end_of_options = 1;
    while (end_of_options < ncommand && strcmp(command[end_of_options], "--") != 0)
        end_of_options++;
    int packed = end_of_options < ncommand;
    const char *folder = lower != NULL && empty != NULL && at != NULL ? overlay_folder(lower, empty, at) : NULL;
    int *data_fds = calloc((size_t)ndata + 2, sizeof *data_fds), nfds = 0;
    size_t options_size = 64;
    for (int k = 1; k < ncommand; k++)
        options_size += strlen(command[k]) + 24;
    char *options = malloc(options_size), *put = options;
    char **exec_argv = calloc((size_t)ncommand + 4, sizeof *exec_argv);
    if (data_fds == NULL || options == NULL || exec_argv == NULL)
        fail("launch", NULL, ENOMEM);
    for (int k = 0; k < ndata; k++)
        data_fds[nfds++] = hex_memfd(data[k], 0, "a mask");
    int n = 0;
    exec_argv[n++] = command[0];
    if (seccomp != NULL) {
        static char seccomp_text[24];
        data_fds[nfds] = hex_memfd(seccomp, 8, "the seccomp program");
        snprintf(seccomp_text, sizeof seccomp_text, "%d", data_fds[nfds++]);
        if (packed) {
            memcpy(put, "--seccomp", 10);
            put += 10;
            memcpy(put, seccomp_text, strlen(seccomp_text) + 1);
            put += strlen(seccomp_text) + 1;
        } else {
            exec_argv[n++] = "--seccomp";
            exec_argv[n++] = seccomp_text;
        }
    }
    for (int k = 1; k < (packed ? end_of_options : 0); k++) {
        const char *option = command[k];
        char number_text[24];
        if (strncmp(option, "@data:", 6) == 0) {
            char *after;
            unsigned long long index = number(option + 6, &after, option);
            if (*after != '\0' || index >= (unsigned long long)ndata)
                fail("no data for", option, 0);
            snprintf(number_text, sizeof number_text, "%d", data_fds[index]);
            option = number_text;
        } else if (strcmp(option, "@overlaid") == 0) {
            if (folder == NULL)
                fail("no overlay for", option, 0);
            option = folder;
        }
        size_t len = strlen(option) + 1;
        memcpy(put, option, len);
        put += len;
    }
    int args_fd = -1;
    char args_text[24];
    if (packed) {
        args_fd = handed(options, (size_t)(put - options), "the options");
        snprintf(args_text, sizeof args_text, "%d", args_fd);
        exec_argv[n++] = "--args";
        exec_argv[n++] = args_text;
    }
    free(options);
    /* "@self" and "@self-fd" in the command name this binary by a descriptor left open (opened in the child) for
     * bubblewrap to run it inside the jail (--drop): no path of the host is bound into the jail for it. */
    static char self_path[48], self_fd_text[24];
    int wants_self = 0;
    /* Only in the drop's own words ("-- @self --drop @self-fd"), never in the bot's command, which its author
     * writes: a bot that named "@self" would otherwise get the descriptor where no drop closes it. */
    int first = end_of_options + 1;
    for (int k = packed ? end_of_options : 1; k < ncommand; k++) {
        int drop = packed && k == first && first + 5 < ncommand && strcmp(command[first + 1], "--drop") == 0;
        if (drop && strcmp(command[k], "@self") == 0) {
            exec_argv[n++] = self_path;
            wants_self = 1;
        } else if (packed && k == first + 2 && wants_self && strcmp(command[k], "@self-fd") == 0) {
            exec_argv[n++] = self_fd_text;
            wants_self = 1;
        } else {
            exec_argv[n++] = command[k];
        }
    }
    exec_argv[n] = NULL;

    /* Fork: the child may not see its parent (a new PID namespace): a pipe tells it the parent lives. */
    int alive[2];
    if (pipe2(alive, O_CLOEXEC) != 0)
        fail("pipe", NULL, errno);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
        fail("prctl(subreaper)", NULL, errno);
    int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    pid_t child = fork();
    if (child < 0)
        fail("fork", NULL, errno);
    if (child > 0) {
        close(alive[0]);
        for (int k = 0; k < nfds; k++)
            close(data_fds[k]);
        if (args_fd >= 0)
            close(args_fd);
        become_init_parent(child, lifeline, proc, leave, leave_path, state, thawed);
    }
    if (proc >= 0)
        close(proc);
    if (leave >= 0)
        close(leave);
    close(alive[1]);
    if (lifeline >= 0)
        close(lifeline);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
        fail("prctl(pdeathsig)", NULL, errno);
    struct pollfd parent = {alive[0], POLLIN, 0};
    if (poll(&parent, 1, 0) > 0)
        _exit(LAYER_FAILED); /* end of file: the parent already died */
    close(alive[0]);
    /* The same for --args, whose number PID 1's command line shows too: from where the memfds happened to fall
     * (after or around the arena's lifeline, whose number is the arena's) to one number in every jail. */
    if (args_fd >= 0 && args_fd != 3 + nfds + 1 + 7) {
        int fixed = 3 + nfds + 1 + 7;
        if (fcntl(fixed, F_GETFD) != -1 || errno != EBADF)
            fail("descriptor in use:", "the options'", EBUSY);
        if (dup2(args_fd, fixed) != fixed || close(args_fd) != 0)
            fail("the options", "could not be handed to bubblewrap", errno);
        snprintf(args_text, sizeof args_text, "%d", fixed);
    }
    if (wants_self) {
        /* No O_CLOEXEC: bubblewrap runs it; --drop closes it. PID 1's command line shows its number, so it is the
         * same in every jail whatever the arena's descriptors: here only 0-2, the memfds and --args are open (nfds +
         * 1 descriptors from 3, with gaps where the arena's lifeline and the freezer's file were), so a number past
         * them all, checked free. */
        int self = open("/proc/self/exe", O_RDONLY), fixed = 3 + nfds + 1 + 8;
        if (self < 0)
            fail("cannot open", "/proc/self/exe", errno);
        if (self != fixed) {
            if (fcntl(fixed, F_GETFD) != -1 || errno != EBADF)
                fail("descriptor in use:", "the launcher's own", EBUSY);
            if (dup2(self, fixed) != fixed || close(self) != 0)
                fail("cannot open", "/proc/self/exe", errno);
        }
        self = fixed;
        snprintf(self_path, sizeof self_path, "/proc/self/fd/%d", self);
        snprintf(self_fd_text, sizeof self_fd_text, "%d", self);
    }
    if (chdir(dir) != 0)
        fail("cannot enter", dir, errno);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    execvpe(exec_argv[0], exec_argv, (char *const *)env);
    cannot_run(exec_argv[0]);
}
