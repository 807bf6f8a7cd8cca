package dev.listwatch.cluster;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The proxy the process environment names for an API server, by the rules of Go's
 * {@code net/http.ProxyFromEnvironment}, which client-go uses when a kubeconfig has no
 * {@code proxy-url}:
 * <ul>
 * <li>an {@code https} server is reached through {@code HTTPS_PROXY} (else
 * {@code https_proxy}), an {@code http} server through {@code HTTP_PROXY} (else
 * {@code http_proxy}); an {@code https} server never falls back to
 * {@code HTTP_PROXY};</li>
 * <li>a value without a scheme is taken as {@code http://}; {@code http://},
 * {@code https://}, {@code socks5://} and {@code socks5h://} proxies are taken, as Go's
 * transport takes them;</li>
 * <li>{@code localhost} and loopback addresses are never proxied;</li>
 * <li>{@code NO_PROXY} (else {@code no_proxy}) is a comma-separated list: {@code *} for
 * no proxy at all; an IP address, or a CIDR block, matched against a server given by IP;
 * a domain ({@code example.com} matches it and its subdomains, {@code .example.com} and
 * {@code *.example.com} only its subdomains); each but a CIDR block may end in
 * {@code :port}, to match only that port (the scheme's default port when the server names
 * none).</li>
 * </ul>
 * Host names are not resolved to match IP entries, as in Go.
 */
final class EnvironmentProxy {

	/** What {@link KubeconfigException}s about a proxy variable name as their file. */
	static final String ORIGIN = "environment";

	private EnvironmentProxy() {
	}

	/**
	 * The variable that names the proxy for a server, whether or not {@code NO_PROXY}
	 * exempts the server.
	 * @param server the API server's URL
	 * @param environment the process environment
	 * @return e.g. {@code HTTPS_PROXY}, or {@code null} when none is set
	 */
	static @Nullable String variable(URI server, Map<String, String> environment) {
		return "https".equalsIgnoreCase(server.getScheme()) ? first(environment, "HTTPS_PROXY", "https_proxy")
				: first(environment, "HTTP_PROXY", "http_proxy");
	}

	/**
	 * The proxy the environment names for a server.
	 * @param server the API server's URL
	 * @param environment the process environment
	 * @return the proxy, or {@code null} when the environment names none for this server
	 * @throws KubeconfigException when the variable that applies is not a proxy URL
	 */
	static Cluster.@Nullable Proxy forServer(URI server, Map<String, String> environment) {
		boolean https = "https".equalsIgnoreCase(server.getScheme());
		String variable = variable(server, environment);
		if (variable == null) {
			return null;
		}
		String value = Objects.requireNonNull(environment.get(variable), "first(...) names one that is set").strip();
		String host = server.getHost().toLowerCase(Locale.ROOT);
		if (host.startsWith("[") && host.endsWith("]")) {
			host = host.substring(1, host.length() - 1);
		}
		int port = (server.getPort() != -1) ? server.getPort() : (https ? 443 : 80);
		String noProxy = first(environment, "NO_PROXY", "no_proxy");
		String noProxyValue = (noProxy != null) ? environment.get(noProxy) : "";
		if (!useProxy(host, port, Objects.requireNonNull(noProxyValue, "first(...) names one that is set"))) {
			return null;
		}
		String url = value.contains("://") ? value : "http://" + value;
		return Values.parseProxy(url, ORIGIN, variable, true);
	}

	/** The first of the names set to a non-blank value. */
	private static @Nullable String first(Map<String, String> environment, String upper, String lower) {
		for (String name : new String[] { upper, lower }) {
			String value = environment.get(name);
			if (value != null && !value.isBlank()) {
				return name;
			}
		}
		return null;
	}

	/**
	 * Whether a server is reached through the proxy, by Go's {@code httpproxy} rules.
	 * @param host the server's host, lower case, without brackets
	 * @param port the server's port
	 * @param noProxy the value of {@code NO_PROXY}
	 * @return whether to use the proxy
	 */
	static boolean useProxy(String host, int port, String noProxy) {
		if (host.equals("localhost")) {
			return false;
		}
		byte[] ip = ipLiteral(host);
		if (ip != null && isLoopback(ip)) {
			return false;
		}
		for (String raw : noProxy.split(",")) {
			String entry = raw.strip().toLowerCase(Locale.ROOT);
			if (entry.isEmpty()) {
				continue;
			}
			if (entry.equals("*")) {
				return false;
			}
			int slash = entry.indexOf('/');
			if (slash > 0) {
				byte[] network = ipLiteral(entry.substring(0, slash));
				if (network != null && ip != null && inBlock(ip, network, entry.substring(slash + 1))) {
					return false;
				}
				continue;
			}
			String entryHost = entry;
			int entryPort = -1;
			int colon = entry.lastIndexOf(':');
			boolean hostAndPort = (colon > 0 && entry.indexOf(':') == colon)
					|| (entry.startsWith("[") && entry.contains("]:"));
			if (hostAndPort) {
				try {
					entryPort = Integer.parseInt(entry.substring(colon + 1));
					entryHost = entry.substring(0, colon);
				}
				catch (NumberFormatException ex) {
					// not a port: the whole entry is the host
				}
			}
			if (entryHost.startsWith("[") && entryHost.endsWith("]")) {
				entryHost = entryHost.substring(1, entryHost.length() - 1);
			}
			if (entryPort != -1 && entryPort != port) {
				continue;
			}
			byte[] entryIp = ipLiteral(entryHost);
			if (entryIp != null) {
				if (ip != null && Arrays.equals(ip, entryIp)) {
					return false;
				}
				continue;
			}
			if (entryHost.startsWith("*.")) {
				entryHost = entryHost.substring(1);
			}
			boolean subdomainsOnly = entryHost.startsWith(".");
			String suffix = subdomainsOnly ? entryHost : "." + entryHost;
			if (host.endsWith(suffix) || (!subdomainsOnly && host.equals(entryHost))) {
				return false;
			}
		}
		return true;
	}

	/** The address of an IPv4 or IPv6 literal, without any lookup, or {@code null}. */
	private static byte @Nullable [] ipLiteral(String text) {
		boolean v4 = text.matches("\\d{1,3}(\\.\\d{1,3}){3}");
		boolean v6 = text.contains(":") && text.matches("[0-9a-f:.]+");
		if (!v4 && !v6) {
			return null;
		}
		try {
			// a literal is parsed, never looked up
			byte[] address = InetAddress.getByName(text).getAddress();
			if (address.length == 16 && isMappedV4(address)) {
				return Arrays.copyOfRange(address, 12, 16);
			}
			return address;
		}
		catch (UnknownHostException ex) {
			return null;
		}
	}

	private static boolean isMappedV4(byte[] address) {
		for (int i = 0; i < 10; i++) {
			if (address[i] != 0) {
				return false;
			}
		}
		return address[10] == (byte) 0xff && address[11] == (byte) 0xff;
	}

	private static boolean isLoopback(byte[] ip) {
		if (ip.length == 4) {
			return ip[0] == 127;
		}
		for (int i = 0; i < 15; i++) {
			if (ip[i] != 0) {
				return false;
			}
		}
		return ip[15] == 1;
	}

	private static boolean inBlock(byte[] ip, byte[] network, String prefixText) {
		if (ip.length != network.length) {
			return false;
		}
		int prefix;
		try {
			prefix = Integer.parseInt(prefixText);
		}
		catch (NumberFormatException ex) {
			return false;
		}
		if (prefix < 0 || prefix > ip.length * 8) {
			return false;
		}
		for (int bit = 0; bit < prefix; bit++) {
			int mask = 0x80 >>> (bit % 8);
			if ((ip[bit / 8] & mask) != (network[bit / 8] & mask)) {
				return false;
			}
		}
		return true;
	}

}
