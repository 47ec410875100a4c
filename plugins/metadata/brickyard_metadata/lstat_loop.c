/* Brickyard's lstat loop: lstat(path) as fast as possible for a set time, no interpreter in
 * the loop. The clock is read once per batch; the batch doubles (up to 1024 calls) while a
 * batch takes under 1 ms, so fast calls pay almost nothing for the clock and slow calls
 * (an uncached gluster round trip) do not overrun the time. Prints "calls seconds".
 * Unlike the lstat write-up's loop, time() is not called per iteration and the elapsed
 * time is measured on CLOCK_MONOTONIC, not rounded to whole seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    struct stat sb;
    unsigned long long calls = 0;
    double seconds, start, elapsed, before;
    int i, batch = 1;
    if (argc != 3) {
        fprintf(stderr, "usage: %s PATH SECONDS\n", argv[0]);
        return 2;
    }
    seconds = atof(argv[2]);
    if (lstat(argv[1], &sb) == -1) {
        perror("lstat");
        return 1;
    }
    start = now();
    before = start;
    do {
        for (i = 0; i < batch; i++) {
            if (lstat(argv[1], &sb) == -1) {
                perror("lstat");
                return 1;
            }
        }
        calls += batch;
        elapsed = now() - start;
        if (batch < 1024 && elapsed - (before - start) < 0.001)
            batch *= 2;
        before = start + elapsed;
    } while (elapsed < seconds);
    printf("%llu %.9f\n", calls, elapsed);
    return 0;
}
