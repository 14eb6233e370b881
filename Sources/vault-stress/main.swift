// A child process for the vault's crash-safety and concurrency tests (not shipped).
//
//   vault-stress add-loop DIR PREFIX        add notes forever, printing "<id> <title>" after each commit
//   vault-stress add DIR COUNT PREFIX       add COUNT notes one transaction each, then print "done"
//   vault-stress disk-full DIR              with a 256 KiB file-size limit (a full disk as SQLite
//                                           sees it), add a 1 MiB note; print the error code and message
//
// The store master key arrives as one hex line on stdin (never argv), as the key cache would hand it.
import Crypto
import Foundation
import Vault

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

func readKey() -> SymmetricKey {
    guard let line = readLine(), line.count == 64 else { fail("expected the key as 64 hex digits on stdin") }
    var bytes: [UInt8] = []
    var index = line.startIndex
    while index < line.endIndex {
        let next = line.index(index, offsetBy: 2)
        guard let byte = UInt8(line[index..<next], radix: 16) else { fail("bad hex key") }
        bytes.append(byte)
        index = next
    }
    return SymmetricKey(data: bytes)
}

/// The body every test can recompute from the title.
func body(for title: String) -> String { "body of \(title)\n" + String(repeating: "x", count: 200) }

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: vault-stress add-loop DIR PREFIX | add DIR COUNT PREFIX") }
let key = readKey()
do {
    let vault = try Vault.open(in: arguments[2], using: .masterKey(key))
    switch arguments[1] {
    case "add-loop":
        var counter = 0
        while true {
            let title = "\(arguments[3])-\(counter)"
            let note = try vault.add(title: title, body: body(for: title), tags: ["stress"])
            // Printed only after the commit returned: the parent may rely on every printed note.
            FileHandle.standardOutput.write(Data("\(note.id.uuidString) \(title)\n".utf8))
            counter += 1
        }
    case "disk-full":
        // Writes past the limit come back short, which SQLite reports as SQLITE_FULL; the signal
        // the kernel would also send is ignored so the write returns instead of killing us.
        signal(SIGXFSZ, SIG_IGN)
        var limit = rlimit(rlim_cur: 256 * 1024, rlim_max: 256 * 1024)
        guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0 else { fail("setrlimit failed") }
        do {
            try vault.add(title: "too big", body: String(repeating: "0123456789abcdef", count: 65536))
            print("added")
        } catch {
            print(error.code.rawValue, error.message)
        }
    case "add":
        guard arguments.count >= 5, let count = Int(arguments[3]) else { fail("add DIR COUNT PREFIX") }
        for counter in 0..<count {
            let title = "\(arguments[4])-\(counter)"
            try vault.add(title: title, body: body(for: title), tags: ["stress"])
        }
        print("done")
    default:
        fail("unknown command \(arguments[1])")
    }
} catch {
    fail("vault-stress: \(error)")
}
