import Vault

/// Titles with `/` are folders, as pass's paths are: `ls bank` lists the notes under `bank/`, and
/// `ls --tree` draws them as `tree` draws pass's store. A folder is only a start of titles, never a
/// thing of its own: it exists while a note's title is under it.
struct NoteFolder: Equatable {
    /// The folder's path without the final `/` ("" for all notes).
    var path: String

    /// `bank`, `bank/` and `/bank/` all name the folder `bank`.
    init(_ text: String) {
        var path = Substring(text)
        while path.hasPrefix("/") { path = path.dropFirst() }
        while path.hasSuffix("/") { path = path.dropLast() }
        self.path = String(path)
    }

    /// Whether `title` is in this folder or below it.
    func contains(_ title: String) -> Bool { path.isEmpty || title.hasPrefix(path + "/") }

    /// `title` below this folder ("" stays whole).
    func relative(_ title: String) -> Substring { path.isEmpty ? Substring(title) : title.dropFirst(path.count + 1) }

    /// The tree of `titles` under this folder, as `tree` draws one: the folder as the root line,
    /// then each name, folders (with a final `/`) and notes sorted together as a file manager would.
    /// A title that is a note and a folder's name both shows twice: `bank` and `bank/`.
    func tree(of titles: [String], root: String) -> [String] {
        final class Node {
            var children: [String: Node] = [:]
        }
        let top = Node()
        for title in titles where contains(title) {
            var node = top
            let parts = relative(title).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            for (index, part) in parts.enumerated() {
                // A note is a leaf named `part`; a folder on the way is `part/`.
                let key = index == parts.count - 1 ? part : part + "/"
                if let next = node.children[key] {
                    node = next
                } else {
                    let next = Node()
                    node.children[key] = next
                    node = next
                }
            }
        }
        var lines = [root]
        func draw(_ node: Node, prefix: String) {
            let names = node.children.keys.sorted { $0.lowercased() == $1.lowercased() ? $0 < $1 : $0.lowercased() < $1.lowercased() }
            for (index, name) in names.enumerated() {
                let last = index == names.count - 1
                lines.append(prefix + (last ? "└── " : "├── ") + TerminalSafeText.line(name))
                draw(node.children[name]!, prefix: prefix + (last ? "    " : "│   "))
            }
        }
        draw(top, prefix: "")
        return lines
    }
}
