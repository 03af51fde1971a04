/* Signals, daemonizing and the pid file: the process-level edges of the CLI.
 * The engine is only ever told to stop through its async-signal-safe stop calls. */
#include "cli/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct lp_cli_signals {
    pthread_t thread;
    pthread_mutex_t mu;
    struct lp_client *client;  /* borrowed; main clears it before freeing */
    struct lp_server *server;
    bool stop_requested;
    bool quit;                 /* lp_cli_signals_free is ending the thread */
    unsigned interrupts;
    bool has_timer;
    timer_t timer;             /* --stop-after: raises SIGALRM once */
};

/* The signals the thread takes: the three that stop us, and the --stop-after alarm. */
static void stop_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGALRM);
}

static void stop_targets(struct lp_cli_signals *s)
{
    if (s->client)
        lp_client_stop(s->client);
    if (s->server)
        lp_server_stop(s->server);
}

static void *signal_thread(void *arg)
{
    struct lp_cli_signals *s = arg;
    sigset_t set;
    int sig = 0;

    stop_set(&set);
    for (;;) {
        if (sigwait(&set, &sig) != 0)
            continue;
        pthread_mutex_lock(&s->mu);
        if (s->quit) {
            pthread_mutex_unlock(&s->mu);
            return NULL;
        }
        if (sig == SIGINT && ++s->interrupts >= 2)
            _exit(128 + SIGINT); /* the user insists: do not wait for a clean stop */
        s->stop_requested = true;
        stop_targets(s);
        pthread_mutex_unlock(&s->mu);
    }
}

struct lp_cli_signals *lp_cli_signals_start(char *err, size_t errlen)
{
    struct lp_cli_signals *s = calloc(1, sizeof(*s));
    sigset_t set;
    int rc;

    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    signal(SIGPIPE, SIG_IGN); /* a closed stdout or peer is an error value, not a death */
    stop_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    /* An ignored signal is discarded even while blocked, so sigwait would never see it:
     * a shell starts background jobs with SIGINT ignored. iperf3 catches these three
     * regardless of what it inherited; so do we. Blocked first, so no default action. */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGALRM, SIG_DFL);
    pthread_mutex_init(&s->mu, NULL);
    rc = pthread_create(&s->thread, NULL, signal_thread, s);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the signal thread: %s", strerror(rc));
        pthread_mutex_destroy(&s->mu);
        free(s);
        return NULL;
    }
    return s;
}

void lp_cli_signals_target(struct lp_cli_signals *s, struct lp_client *c,
                           struct lp_server *srv)
{
    pthread_mutex_lock(&s->mu);
    s->client = c;
    s->server = srv;
    if (s->stop_requested)
        stop_targets(s);
    pthread_mutex_unlock(&s->mu);
}

int lp_cli_signals_deadline(struct lp_cli_signals *s, double seconds, char *err, size_t errlen)
{
    struct sigevent ev;
    struct itimerspec when;

    memset(&ev, 0, sizeof(ev));
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGALRM;
    memset(&when, 0, sizeof(when));
    when.it_value.tv_sec = (time_t)seconds;
    when.it_value.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9);
    if (when.it_value.tv_sec == 0 && when.it_value.tv_nsec == 0)
        when.it_value.tv_nsec = 1; /* 0 would disarm */
    pthread_mutex_lock(&s->mu);
    if (!s->has_timer && timer_create(CLOCK_MONOTONIC, &ev, &s->timer) == 0)
        s->has_timer = true;
    if (!s->has_timer || timer_settime(s->timer, 0, &when, NULL) != 0) {
        snprintf(err, errlen, "cannot set the stop timer: %s", strerror(errno));
        pthread_mutex_unlock(&s->mu);
        return -1;
    }
    pthread_mutex_unlock(&s->mu);
    return 0;
}

int lp_cli_signals_stopped(struct lp_cli_signals *s)
{
    int stopped;

    pthread_mutex_lock(&s->mu);
    stopped = s->stop_requested;
    pthread_mutex_unlock(&s->mu);
    return stopped;
}

void lp_cli_signals_free(struct lp_cli_signals *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->quit = true;
    s->client = NULL;
    s->server = NULL;
    pthread_mutex_unlock(&s->mu);
    pthread_kill(s->thread, SIGTERM); /* blocked, so it only wakes the sigwait */
    pthread_join(s->thread, NULL);
    if (s->has_timer)
        timer_delete(s->timer);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

int lp_cli_daemonize(int log_fd, char *err, size_t errlen)
{
    pid_t pid = fork();
    int null_fd;

    if (pid < 0) {
        snprintf(err, errlen, "cannot fork: %s", strerror(errno));
        return -1;
    }
    if (pid > 0)
        _exit(0);
    if (setsid() < 0) {
        snprintf(err, errlen, "setsid: %s", strerror(errno));
        return -1;
    }
    if (chdir("/") < 0) {
        snprintf(err, errlen, "chdir /: %s", strerror(errno));
        return -1;
    }
    null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0) {
        snprintf(err, errlen, "cannot open /dev/null: %s", strerror(errno));
        return -1;
    }
    dup2(null_fd, STDIN_FILENO);
    dup2(log_fd >= 0 ? log_fd : null_fd, STDOUT_FILENO);
    dup2(log_fd >= 0 ? log_fd : null_fd, STDERR_FILENO);
    if (null_fd > STDERR_FILENO)
        close(null_fd);
    return 0;
}

int lp_cli_abspath(char *path, size_t size, char *err, size_t errlen)
{
    char cwd[4096];
    size_t n;

    if (!path[0] || path[0] == '/')
        return 0;
    if (!getcwd(cwd, sizeof(cwd))) {
        snprintf(err, errlen, "getcwd: %s", strerror(errno));
        return -1;
    }
    n = strlen(cwd) + 1 + strlen(path);
    if (n >= size) {
        snprintf(err, errlen, "path too long: %s/%s", cwd, path);
        return -1;
    }
    memmove(path + strlen(cwd) + 1, path, strlen(path) + 1);
    memcpy(path, cwd, strlen(cwd));
    path[strlen(cwd)] = '/';
    return 0;
}

int lp_cli_pidfile_write(const char *path, char *err, size_t errlen)
{
    char line[32];
    int fd, n;

    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write pid file %s: %s", path, strerror(errno));
        return -1;
    }
    n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
    if (write(fd, line, (size_t)n) != n) {
        snprintf(err, errlen, "cannot write pid file %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

void lp_cli_pidfile_remove(const char *path)
{
    if (path[0])
        unlink(path);
}
