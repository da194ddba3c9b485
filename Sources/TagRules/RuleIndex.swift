import AASAPatterns

/// Which rules can possibly match a URI, so that a match costs the same with 10 rules or 10,000 (docs/rules.md, "Order and fan-out"
/// performance goal): rules with `domains` are bucketed by scheme and exact host (hashed) and by scheme and the
/// parent domain of wildcard entries (looked up label by label from the right; a `domains` rule without
/// `schemes` is filed under http and https), rules with only `schemes` by scheme, rules with
/// no URI condition but a `uid` list (and no `sun`) by UID (hashed); the remaining rules are always candidates. Buckets hold
/// rule indices in load order.
struct RuleIndex: Sendable {
    /// A scheme and a host (or parent domain), hashed together without building a string.
    struct HostKey: Hashable, Sendable {
        var scheme: String
        var host: Substring
    }

    private var exactHosts: [HostKey: [Int]] = [:]
    private var wildcardParents: [HostKey: [Int]] = [:]
    /// Which lengths (in bytes, up to 255) wildcard parent domains have: suffixes of other lengths are not looked up.
    private var wildcardLengths = [Bool](repeating: false, count: 256)
    private var schemes: [String: [Int]] = [:]
    private var uids: [String: [Int]] = [:]
    private var uriIndependent: [Int] = []

    init(rules: [Rule]) {
        for (index, rule) in rules.enumerated() {
            let conditions = rule.conditions
            if let domains = conditions.domains {
                for scheme in conditions.schemes ?? ["http", "https"] {
                    for domain in domains {
                        let key = HostKey(scheme: scheme, host: Substring(domain.host))
                        if domain.isWildcard {
                            Self.append(index, to: &wildcardParents[key, default: []])
                            wildcardLengths[min(domain.host.utf8.count, 255)] = true
                        } else {
                            Self.append(index, to: &exactHosts[key, default: []])
                        }
                    }
                }
            } else if let schemeList = conditions.schemes {
                for scheme in schemeList { Self.append(index, to: &schemes[scheme, default: []]) }
            } else if let uidList = conditions.uids, conditions.sun == nil {
                // A `sun` rule's `uid` names the UID its verified message holds, not the one the reader saw (an
                // NTAG 424 DNA may answer a random one): such a rule is a candidate for every tag.
                for uid in uidList { Self.append(index, to: &uids[uid, default: []]) }
            } else {
                uriIndependent.append(index)
            }
        }
    }

    private static func append(_ index: Int, to bucket: inout [Int]) {
        if bucket.last != index { bucket.append(index) }
    }

    /// The indices of the rules that may match, in load order, without duplicates.
    func candidates(for uri: ParsedURI?, uid: String?) -> [Int] {
        var lists = Buckets()
        if !uriIndependent.isEmpty { lists.append(uriIndependent) }
        if let uid, let bucket = uids[uid] { lists.append(bucket) }
        if let uri { addCandidates(for: uri, to: &lists) }
        if let single = lists.single { return single }
        return lists.more.isEmpty ? [] : Self.merge(lists.more)
    }

    /// The buckets that apply to one event; one bucket (the common case) needs no array of arrays.
    private struct Buckets {
        var single: [Int]?
        var more: [[Int]] = []

        mutating func append(_ bucket: [Int]) {
            if more.isEmpty, single == nil {
                single = bucket
            } else {
                if let first = single { more.append(first) }
                single = nil
                more.append(bucket)
            }
        }
    }

    private func addCandidates(for uri: ParsedURI, to lists: inout Buckets) {
        if let bucket = schemes[uri.scheme] { lists.append(bucket) }
        if let host = uri.host {
            if let bucket = exactHosts[HostKey(scheme: uri.scheme, host: host)] { lists.append(bucket) }
            if !wildcardParents.isEmpty {
                var rest = host
                while let dot = rest.utf8.firstIndex(of: UInt8(ascii: ".")) {
                    rest = rest[rest.utf8.index(after: dot)...]
                    guard wildcardLengths[min(rest.utf8.count, 255)] else { continue }
                    if let bucket = wildcardParents[HostKey(scheme: uri.scheme, host: rest)] { lists.append(bucket) }
                }
            }
        }
    }

    /// Merges sorted lists into one sorted list without duplicates.
    private static func merge(_ lists: [[Int]]) -> [Int] {
        var positions = [Int](repeating: 0, count: lists.count)
        var result: [Int] = []
        result.reserveCapacity(lists.reduce(0) { $0 + $1.count })
        while true {
            var best = -1
            for list in lists.indices where positions[list] < lists[list].count {
                if best < 0 || lists[list][positions[list]] < lists[best][positions[best]] { best = list }
            }
            if best < 0 { return result }
            let value = lists[best][positions[best]]
            positions[best] += 1
            if result.last != value { result.append(value) }
        }
    }
}
