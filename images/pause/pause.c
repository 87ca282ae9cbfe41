/*
 * pause — the process that holds a pod sandbox's namespaces open.
 *
 * Written for nodeagent. It runs as PID 1 of the sandbox, so it must:
 *   - block, doing nothing, until it is asked to stop with SIGINT or SIGTERM,
 *     then exit 0 (a PID 1 has no default signal actions, so the handlers are
 *     what makes it stoppable at all);
 *   - reap every child that dies (SIGCHLD): processes whose parent exits inside
 *     a shared PID namespace are re-parented to us and would stay zombies.
 *
 * Build: gcc -static -Os -o pause pause.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig) { stop_signal = sig; }

/* Nothing to do in the handler: the main loop reaps after sigsuspend returns. */
static void on_child(int sig) { (void)sig; }

static void reap_all(void) {
    for (;;) {
        pid_t pid = waitpid(-1, NULL, WNOHANG);
        if (pid > 0) continue;          /* reaped one, look for more */
        if (pid < 0 && errno == EINTR) continue;
        return;                          /* 0: children alive; -1/ECHILD: none */
    }
}

static int install(int sig, void (*handler)(int)) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | (sig == SIGCHLD ? SA_NOCLDSTOP : 0);
    return sigaction(sig, &sa, NULL);
}

int main(int argc, char **argv) {
    if (argc > 1 && (strcmp(argv[1], "-v") == 0 || strcmp(argv[1], "--version") == 0)) {
        puts("nodeagent pause 1.0");
        return 0;
    }

    /* Block the signals we wait for, so none can arrive between the check of
     * stop_signal and sigsuspend (the classic lost-wakeup race). */
    sigset_t waited, old;
    sigemptyset(&waited);
    sigaddset(&waited, SIGINT);
    sigaddset(&waited, SIGTERM);
    sigaddset(&waited, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &waited, &old) != 0) { perror("pause: sigprocmask"); return 1; }

    if (install(SIGINT, on_stop) != 0 || install(SIGTERM, on_stop) != 0 ||
        install(SIGCHLD, on_child) != 0) {
        perror("pause: sigaction");
        return 1;
    }

    /* The mask used while suspended: everything the caller allowed, plus ours. */
    sigset_t during = old;
    sigdelset(&during, SIGINT);
    sigdelset(&during, SIGTERM);
    sigdelset(&during, SIGCHLD);

    reap_all(); /* children we may have inherited before the handler existed */
    while (!stop_signal) {
        sigsuspend(&during); /* always returns -1/EINTR after a handler ran */
        reap_all();
    }
    return 0;
}
