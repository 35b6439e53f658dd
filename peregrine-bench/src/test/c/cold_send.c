/*
 * What one UDP send over loopback costs when it is the first for a while: the case of a MoldUDP64
 * re-request and its answer, one of each every few milliseconds, against a ping-pong's back-to-back sends.
 *
 *   cc -O2 -o /tmp/cold_send peregrine-bench/src/test/c/cold_send.c && /tmp/cold_send GAP_US [COUNT] [spin|walk|poll]
 *
 * Each of COUNT (default 2000) sends of 20 bytes with sendto(2) on an unconnected socket follows GAP_US
 * microseconds of other work: spinning on the clock (spin, the default); writing a byte per cache line across
 * 8 MiB, as a process that receives and buffers a feed does (walk); or calling recv(2) without waiting on an
 * empty socket, as a busy-polling subscriber does between packets (poll), which keeps the kernel entered but
 * not its send path. The datagram is read back after the timing.
 * Prints the percentiles of the sendto(2) call alone, clock to clock.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define WALK_BYTES (8 << 20)
#define MAX_COUNT 1000000

static char walk_area[WALK_BYTES];
static long samples[MAX_COUNT];

static long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    const long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s GAP_US [COUNT] [spin|walk|poll]\n", argv[0]);
        return 2;
    }
    const long gap_ns = atol(argv[1]) * 1000L;
    const int count = argc > 2 ? atoi(argv[2]) : 2000;
    const char *work = argc > 3 ? argv[3] : "spin";
    const int walk = strcmp(work, "walk") == 0, poll = strcmp(work, "poll") == 0;
    if (gap_ns < 0 || count < 100 || count > MAX_COUNT) {
        fprintf(stderr, "GAP_US must be at least 0 and COUNT from 100 to %d\n", MAX_COUNT);
        return 2;
    }
    if (!walk && !poll && strcmp(work, "spin") != 0) {
        fprintf(stderr, "the work must be spin, walk or poll, not %s\n", work);
        return 2;
    }
    const int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
    const int idle = socket(AF_INET, SOCK_DGRAM, 0); /* never sent to: what poll reads finds nothing */
    struct sockaddr_in to = {0};
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof to;
    if (rx < 0 || tx < 0 || idle < 0 || bind(rx, (struct sockaddr *)&to, sizeof to) != 0
        || bind(idle, (struct sockaddr *)&to, sizeof to) != 0
        || getsockname(rx, (struct sockaddr *)&to, &length) != 0 || fcntl(rx, F_SETFL, O_NONBLOCK) != 0) {
        perror("socket");
        return 1;
    }
    char datagram[20] = {0}, received[2048];
    long position = 0;
    for (int i = 0; i < count; i++) {
        const long until = now_ns() + gap_ns;
        while (now_ns() < until) {
            if (poll && recv(idle, received, sizeof received, MSG_DONTWAIT) >= 0) {
                fprintf(stderr, "recv: a datagram on the idle socket\n");
                return 1;
            }
            if (walk) {
                for (int j = 0; j < 4096; j++) {
                    position = position + 64 < WALK_BYTES ? position + 64 : 0;
                    walk_area[position]++;
                }
            }
        }
        const long start = now_ns();
        if (sendto(tx, datagram, sizeof datagram, 0, (struct sockaddr *)&to, sizeof to) != sizeof datagram) {
            perror("sendto");
            return 1;
        }
        samples[i] = now_ns() - start;
        if (recv(rx, received, sizeof received, 0) != sizeof datagram) {
            perror("recv");
            return 1;
        }
    }
    qsort(samples, count, sizeof samples[0], by_value);
    printf("cold-send gap_us=%ld work=%s count=%d p50_us=%.2f p90_us=%.2f p99_us=%.2f\n", gap_ns / 1000,
        work, count, samples[count / 2] / 1e3, samples[count * 9 / 10] / 1e3,
        samples[count * 99 / 100] / 1e3);
    return 0;
}
