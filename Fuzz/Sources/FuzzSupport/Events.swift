/// URIs that exercise the matchers of a loaded rule set.
public let sampleURIs = [
    "https://example.com/", "https://www.example.com/a/b.pdf?ref=x&q=1#top", "myapp://open/item/42",
    "tel:+441234", "https://xn--bcher-kva.example/caf%C3%A9", "HTTPS://EXAMPLE.COM:8443/%zz?%", "",
]
