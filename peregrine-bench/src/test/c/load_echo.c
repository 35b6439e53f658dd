/*
 * The machine's own cost of bench load's pattern, in C: N TCP connections on loopback, one client thread and one
 * responder process with one thread, each message its own write (docs/scaling-1000.md).
 *
 *   gcc -O2 -o load_echo load_echo.c
 *   load_echo rate   CONNS TOTAL_RATE SECONDS [SIZE]   open loop: message j due at j/TOTAL_RATE s, on connection j % CONNS;
 *                                                     latency from its due time (coordinated omission corrected)
 *   load_echo closed CONNS 0          SECONDS [SIZE]   one message in flight per connection, the next sent on its echo:
 *                                                     as fast as both sides go, one message per read and per write
 *
 * The client busy-polls (epoll_wait with timeout 0), as bench load's client thread does; the responder sleeps in
 * epoll_wait(-1), so its CPU time is its work. Each side prints one line: messages, CPU time per message (thread CPU:
 * user + system, which includes the kernel's loopback work done in its system calls), and its system calls per
 * message. The client adds p50/p99/max in microseconds.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 1024

static long long now_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }

/* The responder: echoes every byte it reads on the connection it came from, one write per read. */
static void respond(int listener, int conns) {
    int ep = epoll_create1(0);
    struct epoll_event ev = {0}, events[MAX_EVENTS];
    for (int i = 0; i < conns; i++) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) die("accept");
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) die("epoll_ctl");
    }
    signal(SIGTERM, on_term);
    static char buf[1 << 16];
    long long reads = 0, writes = 0, waits = 0, bytes = 0;
    long long cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    int open = conns;
    while (!stop && open > 0) {
        int n = epoll_wait(ep, events, MAX_EVENTS, -1);
        waits++;
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            ssize_t got = read(fd, buf, sizeof buf);
            reads++;
            if (got <= 0) {
                close(fd);
                open--;
                continue;
            }
            bytes += got;
            for (ssize_t off = 0; off < got;) {
                ssize_t put = write(fd, buf + off, got - off);
                writes++;
                if (put < 0) {
                    if (errno == EAGAIN) continue;
                    die("responder write");
                }
                off += put;
            }
        }
    }
    long long cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    fprintf(stderr, "responder bytes=%lld cpu_ms=%.1f reads=%lld writes=%lld epoll_waits=%lld\n", bytes, cpu / 1e6,
            reads, writes, waits);
    exit(0);
}

/* The client never blocks in a write (a responder blocked writing to it would never read again): what the socket
   does not take waits in the connection's own buffer, and the connection in a list of those to flush. */
#define OUT_BYTES (1 << 16)
static char (*out)[OUT_BYTES];
static int *out_len, *pending, *listed, pending_count;
static long long writes;

static void flush(int fd, int i) {
    ssize_t put = write(fd, out[i], out_len[i]);
    writes++;
    if (put < 0) {
        if (errno != EAGAIN) die("client write");
        put = 0;
    }
    memmove(out[i], out[i] + put, out_len[i] - put);
    out_len[i] -= put;
}

static void send_message(int fd, int i, const char *msg, int size) {
    if (out_len[i] + size > OUT_BYTES) {
        fprintf(stderr, "client: connection %d has %d bytes waiting\n", i, out_len[i]);
        exit(1);
    }
    memcpy(out[i] + out_len[i], msg, size);
    out_len[i] += size;
    if (out_len[i] == size) {
        flush(fd, i);
    }
    if (out_len[i] > 0 && !listed[i]) {
        listed[i] = 1;
        pending[pending_count++] = i;
    }
}

static int cmp(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s rate|closed CONNS TOTAL_RATE SECONDS [SIZE]\n", argv[0]);
        return 2;
    }
    if (strcmp(argv[1], "closed") != 0 && strcmp(argv[1], "rate") != 0) {
        fprintf(stderr, "mode must be rate or closed, got %s\n", argv[1]);
        return 2;
    }
    int closed = strcmp(argv[1], "closed") == 0;
    int conns = atoi(argv[2]);
    double rate = atof(argv[3]);
    double seconds = atof(argv[4]);
    int size = argc > 5 ? atoi(argv[5]) : 256;
    if (conns < 1 || size < 16 || size > 4096 || seconds <= 0 || (!closed && rate <= 0)) {
        fprintf(stderr, "usage: %s rate|closed CONNS TOTAL_RATE SECONDS [SIZE]: CONNS >= 1, SECONDS > 0, SIZE in"
                " 16..4096, TOTAL_RATE > 0 for rate\n", argv[0]);
        return 2;
    }
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = 0};
    if (bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0) die("bind");
    socklen_t len = sizeof addr;
    getsockname(listener, (struct sockaddr *)&addr, &len);
    if (listen(listener, 4096) < 0) die("listen");
    pid_t child = fork();
    if (child == 0) {
        respond(listener, conns);
    }
    int *fds = malloc(sizeof(int) * conns);
    int *have = calloc(conns, sizeof(int)); /* bytes of the echo being reassembled, per connection */
    char (*in)[4096] = malloc((size_t)conns * 4096);
    out = malloc((size_t)conns * OUT_BYTES);
    out_len = calloc(conns, sizeof(int));
    pending = calloc(conns, sizeof(int));
    listed = calloc(conns, sizeof(int));
    long long *sent_at = calloc(conns, sizeof(long long));
    int ep = epoll_create1(0);
    struct epoll_event ev = {0}, events[MAX_EVENTS];
    for (int i = 0; i < conns; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(fds[i], (struct sockaddr *)&addr, sizeof addr) < 0) die("connect");
        setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        fcntl(fds[i], F_SETFL, O_NONBLOCK);
        ev.events = EPOLLIN;
        ev.data.u32 = i;
        if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) < 0) die("epoll_ctl");
    }
    long long capacity = closed ? 50000000LL : (long long)(rate * seconds) + 1;
    long long *latency = malloc(sizeof(long long) * capacity);
    char msg[4096] = {0};
    long long received = 0, sent = 0, reads = 0, waits = 0;
    long long start = now_ns(CLOCK_MONOTONIC), cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    long long end = start + (long long)(seconds * 1e9);
    double interval = closed ? 0 : 1e9 / rate;
    long long total = closed ? capacity : (long long)(rate * seconds);
    if (closed) {
        for (int i = 0; i < conns; i++) {
            sent_at[i] = now_ns(CLOCK_MONOTONIC);
            send_message(fds[i], i, msg, size);
            sent++;
        }
    }
    long long deadline = end + 5000000000LL;
    while (received < sent || (sent < total && !(closed && now_ns(CLOCK_MONOTONIC) > end))) {
        long long now = now_ns(CLOCK_MONOTONIC);
        if (now > deadline) {
            fprintf(stderr, "client: %lld of %lld echoes after the deadline\n", received, sent);
            kill(child, SIGTERM);
            return 1;
        }
        while (!closed && sent < total && start + (long long)(sent * interval) <= now) {
            long long due = start + (long long)(sent * interval);
            memcpy(msg, &due, sizeof due);
            send_message(fds[sent % conns], (int)(sent % conns), msg, size);
            sent++;
        }
        for (int p = pending_count - 1; p >= 0; p--) {
            int i = pending[p];
            if (out_len[i] > 0) flush(fds[i], i);
            if (out_len[i] == 0) {
                listed[i] = 0;
                pending[p] = pending[--pending_count];
            }
        }
        int n = epoll_wait(ep, events, MAX_EVENTS, 0);
        waits++;
        now = now_ns(CLOCK_MONOTONIC);
        for (int e = 0; e < n; e++) {
            int i = events[e].data.u32;
            /* all that waits, whole echoes first: a client that read one echo per wake-up would fall behind its
               responder for good once a queue formed */
            ssize_t got = read(fds[i], in[i] + have[i], sizeof in[i] - have[i]);
            reads++;
            if (got < 0 && errno == EAGAIN) continue;
            if (got <= 0) die("client read");
            have[i] += got;
            int at = 0;
            for (; have[i] - at >= size; at += size) {
                long long due;
                memcpy(&due, in[i] + at, sizeof due);
                if (received < capacity) latency[received] = now - (closed ? sent_at[i] : due);
                received++;
                if (closed && now < end) {
                    sent_at[i] = now;
                    send_message(fds[i], i, msg, size);
                    sent++;
                }
            }
            memmove(in[i], in[i] + at, have[i] - at);
            have[i] -= at;
        }
    }
    long long cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    double wall = (now_ns(CLOCK_MONOTONIC) - start) / 1e9;
    long long counted = received < capacity ? received : capacity;
    qsort(latency, counted, sizeof(long long), cmp);
    printf("client %s conns=%d size=%d messages=%lld msg/s=%.0f cpu_us/msg=%.2f reads/msg=%.3f writes/msg=%.3f"
           " epoll_waits/msg=%.2f p50_us=%.1f p99_us=%.1f max_us=%.1f\n", closed ? "closed" : "rate", conns, size,
           received, received / wall, cpu / 1e3 / received, (double)reads / received, (double)writes / received,
           (double)waits / received, latency[counted / 2] / 1e3, latency[counted * 99 / 100] / 1e3,
           latency[counted - 1] / 1e3);
    fflush(stdout);
    for (int i = 0; i < conns; i++) close(fds[i]);
    int status;
    waitpid(child, &status, 0);
    return 0;
}
