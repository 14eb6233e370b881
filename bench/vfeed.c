/*
 * Feeds libfprint's virtual_device for the benchmark, the way its protocol wants it:
 * `vfeed SOCKET COMMAND...` sends each command on its own connection (retrying the connection
 * while the device is not open yet), without a trailing newline, and waits for libfprint to close
 * the connection before sending the next one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int connect_when_listening(const char *path) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) return -1;
    strcpy(address.sun_path, path);
    for (int attempt = 0; attempt < 40000; attempt++) {  /* about 20 s */
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return -1;
        if (connect(fd, (struct sockaddr *) &address, sizeof address) == 0) return fd;
        int failure = errno;
        close(fd);
        if (failure != ENOENT && failure != ECONNREFUSED && failure != EAGAIN) return -1;
        nanosleep(&(struct timespec){.tv_nsec = 500000}, NULL);
    }
    return -1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: vfeed SOCKET COMMAND...\n");
        return 64;
    }
    for (int i = 2; i < argc; i++) {
        int fd = connect_when_listening(argv[1]);
        if (fd < 0) {
            perror("vfeed: connect");
            return 2;
        }
        if (write(fd, argv[i], strlen(argv[i])) != (ssize_t) strlen(argv[i])) {
            perror("vfeed: write");
            return 2;
        }
        char buffer[256];
        while (read(fd, buffer, sizeof buffer) > 0) {}  /* EOF acknowledges the command */
        close(fd);
    }
    return 0;
}
