package dev.listwatch.testsupport;

import java.util.concurrent.CountDownLatch;

/**
 * Starts a {@link LocalApiServer}, prints how to reach it, and runs until killed
 * (Ctrl-C), then stops it.
 */
public final class LocalApiServerMain {

	private LocalApiServerMain() {
	}

	public static void main(String[] args) throws InterruptedException {
		long started = System.nanoTime();
		LocalApiServer server = new LocalApiServer();
		CountDownLatch stopped = new CountDownLatch(1);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			server.close();
			stopped.countDown();
		}, "listwatch-apiserver-shutdown"));
		server.start();
		System.out.printf("kube-apiserver %s is ready at %s (started in %d ms)%n", ApiServerBinaries.VERSION,
				server.serverUrl(), (System.nanoTime() - started) / 1_000_000);
		System.out.printf("kubeconfig:  %s%n", server.kubeconfig());
		System.out.printf("try:         %s --kubeconfig %s get ns%n", ApiServerBinaries.kubectl(), server.kubeconfig());
		System.out.printf("or:          export KUBECONFIG=%s%n", server.kubeconfig());
		System.out.println("Stop with Ctrl-C.");
		stopped.await();
	}

}
