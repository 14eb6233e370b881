import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Makes `fd` the read end of a new pipe (the write end closed), for tests of `--passcode-fd`: pick a
/// high number, which parallel tests' files (lowest free number first) will not take. The caller closes it.
func openPipeEnd(at fd: Int32) {
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    #expect(dup2(fds[0], fd) == fd)
    close(fds[0])
    close(fds[1])
}
