package dev.listwatch.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import org.springframework.lang.Contract;

/**
 * The value parsers of the loader: each turns one field's text into a value or a
 * {@link KubeconfigException} naming the file, the field and the fix (never the value
 * when it may be a secret).
 */
final class Values {

	private Values() {
	}

	/**
	 * Parses an API server URL the way kubectl accepts it: a missing scheme means
	 * {@code https://}, a trailing slash is dropped, a path prefix is kept.
	 * @param value the text
	 * @param file the file (or settings description) that holds it
	 * @param field the field that holds it
	 * @return the URL, without a trailing slash
	 * @throws KubeconfigException if it is not an http(s) URL with a host, or carries
	 * user info, a query or a fragment
	 */
	static URI parseServer(String value, String file, String field) {
		String text = value.strip();
		if (!text.contains("://")) {
			text = "https://" + text;
		}
		URI uri;
		try {
			uri = new URI(text);
		}
		catch (URISyntaxException ex) {
			throw new KubeconfigException(file, field, "is not a valid URL",
					"write the API server URL, e.g. https://127.0.0.1:6443");
		}
		String scheme = uri.getScheme();
		if (!"https".equalsIgnoreCase(scheme) && !"http".equalsIgnoreCase(scheme) || uri.getHost() == null) {
			throw new KubeconfigException(file, field, "is not an http(s) URL with a host",
					"write the API server URL, e.g. https://127.0.0.1:6443");
		}
		if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
			throw new KubeconfigException(file, field, "carries user info, a query or a fragment",
					"write only scheme, host, port and an optional path prefix, e.g. https://rancher.example.com/k8s/clusters/c-1");
		}
		String path = (uri.getRawPath() != null) ? uri.getRawPath() : "";
		while (path.endsWith("/")) {
			path = path.substring(0, path.length() - 1);
		}
		return URI.create(uri.getScheme().toLowerCase(Locale.ROOT) + "://" + uri.getRawAuthority() + path);
	}

	/**
	 * Parses a {@code proxy-url}, or a proxy variable of the environment: the schemes
	 * client-go accepts, {@code http://}, {@code https://} (TLS to the proxy) and
	 * {@code socks5://}; from the environment also {@code socks5h://}, which Go's
	 * transport takes as {@code socks5://} (the proxy resolves host names either way).
	 * Without a port, the scheme's default (80, 443, 1080), as in Go.
	 * @param value the text
	 * @param file the file that holds it
	 * @param field the field that holds it
	 * @param environment whether it comes from the environment
	 * @return the proxy, its user and password percent-decoded
	 * @throws KubeconfigException if it is not such a URL with a host
	 */
	static Cluster.Proxy parseProxy(String value, String file, String field, boolean environment) {
		URI uri;
		try {
			uri = new URI(value.strip());
		}
		catch (URISyntaxException ex) {
			// never the value in the message: it may carry a password
			throw new KubeconfigException(file, field, "is not a valid URL",
					"write the proxy URL, e.g. http://proxy.example.com:3128, https://proxy.example.com:3129 or socks5://proxy.example.com:1080");
		}
		String scheme = (uri.getScheme() != null) ? uri.getScheme().toLowerCase(Locale.ROOT) : "";
		Cluster.Proxy.Scheme kind = switch (scheme) {
			case "http" -> Cluster.Proxy.Scheme.HTTP;
			case "https" -> Cluster.Proxy.Scheme.HTTPS;
			case "socks5" -> Cluster.Proxy.Scheme.SOCKS5;
			case "socks5h" -> environment ? Cluster.Proxy.Scheme.SOCKS5 : null;
			default -> null;
		};
		if (kind == null) {
			String fix = "socks5h".equals(scheme)
					? "write socks5:// instead (client-go refuses socks5h:// in a kubeconfig; the proxy resolves host names with socks5:// too)"
					: "write an http://, https:// or socks5:// proxy URL, e.g. http://proxy.example.com:3128 (socks4 is not supported, by client-go either)";
			throw new KubeconfigException(file, field,
					"has the scheme '" + scheme + "', which is not a proxy scheme client-go accepts", fix);
		}
		if (uri.getHost() == null) {
			throw new KubeconfigException(file, field, "is not a proxy URL with a host",
					"write the proxy URL, e.g. " + kind.prefix() + "proxy.example.com:" + kind.defaultPort());
		}
		int port = (uri.getPort() != -1) ? uri.getPort() : kind.defaultPort();
		String username = null;
		String password = null;
		if (uri.getRawUserInfo() != null) {
			String[] parts = uri.getRawUserInfo().split(":", 2);
			// percent-decoding only: URLDecoder would also turn a '+' of a password into
			// a space
			username = URLDecoder.decode(parts[0].replace("+", "%2B"), StandardCharsets.UTF_8);
			password = (parts.length > 1) ? URLDecoder.decode(parts[1].replace("+", "%2B"), StandardCharsets.UTF_8)
					: "";
		}
		String host = uri.getHost();
		if (host.startsWith("[") && host.endsWith("]")) {
			host = host.substring(1, host.length() - 1);
		}
		return new Cluster.Proxy(kind, host, port, username, password);
	}

	/**
	 * Decodes a {@code *-data} field; whitespace inside is ignored.
	 * @throws KubeconfigException if it is not base64 (the value is not quoted)
	 */
	static String decodeBase64(String value, String file, String field, String fix) {
		String compact = value.replaceAll("\\s", "");
		try {
			return new String(Base64.getDecoder().decode(compact), StandardCharsets.UTF_8);
		}
		catch (IllegalArgumentException ex) {
			throw new KubeconfigException(file, field, "is not valid base64", fix);
		}
	}

	/**
	 * Parses PEM certificates.
	 * @throws KubeconfigException if there is no certificate that can be read
	 */
	static List<X509Certificate> certificates(String pem, String file, String field, String fix) {
		try {
			return Tls.certificates(pem);
		}
		catch (IllegalArgumentException ex) {
			throw new KubeconfigException(file, field, "does not hold a PEM certificate that can be read", fix);
		}
	}

	/**
	 * Reads a file that a field names.
	 * @throws KubeconfigException naming the path and the kind of failure (never the
	 * content)
	 */
	static String readFile(Path path, String file, String field) {
		try {
			return Files.readString(path, StandardCharsets.UTF_8);
		}
		catch (IOException | RuntimeException ex) {
			throw new KubeconfigException(file, field,
					"names " + path + " which cannot be read (" + ex.getClass().getSimpleName() + ")",
					"check the path (relative paths resolve against the kubeconfig's directory) and the file's permissions");
		}
	}

	@Contract("null -> false")
	static boolean hasText(@Nullable String value) {
		return value != null && !value.isBlank();
	}

}
