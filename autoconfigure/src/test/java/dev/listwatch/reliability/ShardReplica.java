package dev.listwatch.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Collectors;

import dev.listwatch.KubernetesObject;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.autoconfigure.controller.ControllerAutoConfiguration;
import dev.listwatch.controller.Reconciler;
import dev.listwatch.controller.Result;
import dev.listwatch.controller.ShardsChangedEvent;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * One replica of an application with a sharded controller, run as a process of its own by
 * {@link ShardedControllerChurnIT}, so that it can be killed ({@code SIGKILL}) and frozen
 * ({@code SIGSTOP}) for real. Arguments: the kubeconfig, this replica's identity, the
 * namespace, the file its reconciles are recorded in, then Spring properties
 * ({@code key=value}). Its reconciler records each reconcile as one line {@code key
 * identity start end v owned} (times from {@link System#nanoTime()}, which the processes
 * of one Linux machine share); it prints {@code READY} once started and
 * {@code SHARDS <nanoTime> <shards>} on each change of its shards; it leaves gracefully
 * (closes its context) when its standard input closes.
 */
public final class ShardReplica {

	/** How long a reconcile works, as a write to the API server would. */
	private static final long WORK_MILLIS = 2;

	private ShardReplica() {
	}

	public static void main(String[] args) throws Exception {
		String kubeconfig = args[0];
		String identity = args[1];
		String namespace = args[2];
		Path records = Path.of(args[3]);
		Writer out = Files.newBufferedWriter(records, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
				StandardOpenOption.APPEND);
		Reconciler<KubernetesObject> reconciler = (request) -> {
			long start = System.nanoTime();
			String v = request.object().map((object) -> object.at("/data/v").asString()).orElse("-");
			boolean interrupted = false;
			try {
				Thread.sleep(WORK_MILLIS);
			}
			catch (InterruptedException ex) {
				// interrupted as its shard was given up: recorded too, as it ran until
				// now
				interrupted = true;
			}
			// the end is read before the question: a freeze after it cannot make a
			// recorded, owned reconcile end later than recorded
			long end = System.nanoTime();
			boolean owned = !interrupted && request.stillOwned();
			String line = request.key() + " " + identity + " " + start + " " + end + " " + v + " " + owned + " "
					+ interrupted + "\n";
			synchronized (out) {
				out.write(line);
				out.flush();
			}
			if (interrupted) {
				throw new InterruptedException("given up");
			}
			return Result.done();
		};
		ApplicationListener<ShardsChangedEvent> shards = (event) -> System.out.println("SHARDS " + System.nanoTime()
				+ " " + event.shards().stream().map(String::valueOf).collect(Collectors.joining(",")));
		String[] properties = new String[args.length - 4 + 4];
		System.arraycopy(args, 4, properties, 0, args.length - 4);
		properties[args.length - 4] = "listwatch.kubeconfig=" + kubeconfig;
		properties[args.length - 3] = "listwatch.watches.configmaps.namespace=" + namespace;
		properties[args.length - 2] = "listwatch.controllers.copy.sharding.identity=" + identity;
		properties[args.length - 1] = "listwatch.controllers.copy.sharding.lease-namespace=" + namespace;
		ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.listeners(shards)
			.initializers((ctx) -> ctx.getBeanFactory().registerSingleton("copyReconciler", reconciler))
			.properties(properties)
			.run();
		System.out.println("READY");
		try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
			while (in.readLine() != null) {
				// until the test closes it
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		context.close();
		System.out.println("LEFT");
		System.exit(0);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
			ListwatchAutoConfiguration.class, ControllerAutoConfiguration.class })
	static class App {

	}

}
