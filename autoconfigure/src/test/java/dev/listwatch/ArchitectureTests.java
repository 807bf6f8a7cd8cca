package dev.listwatch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules of the layout, checked on the compiled library the way Spring Boot's build
 * checks its own ({@code ArchitectureRules}): one package per station of the data flow,
 * no package depending on itself through others, and every public type named in the
 * README's table of public types (what is public is a promise to code outside this
 * repository).
 */
class ArchitectureTests {

	private static JavaClasses classes;

	@BeforeAll
	static void importLibrary() {
		// the library's own classes: not test-support's, which the test classpath also
		// has
		classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPath(Path.of("target", "classes"));
	}

	@Test
	void packagesAreFreeOfCycles() {
		// the root package (the public contract) is a slice of its own, like every
		// station
		slices().assignedFrom(new PackageSlices()).should().beFreeOfCycles().check(classes);
	}

	@ParameterizedTest
	@ValueSource(strings = { "dev.listwatch.autoconfigure", "dev.listwatch.informer", "dev.listwatch.client",
			"dev.listwatch.controller", "dev.listwatch.autoconfigure.controller" })
	void classesOfAPackageAreFreeOfCycles(String packageName) {
		// a class that calls back into the class that calls it is one room with two
		// doors: a change to either needs both read; nested classes belong to the class
		// they are written in
		slices().assignedFrom(new ClassSlices(packageName)).should().beFreeOfCycles().check(classes);
	}

	@Test
	void everyPublicTypeIsInTheReadmesTableOfPublicTypes() throws IOException {
		Set<String> listed = listedTypes(Files.readString(readme()));
		Set<String> missing = new TreeSet<>();
		for (JavaClass type : classes) {
			if (type.getModifiers().contains(JavaModifier.PUBLIC) && type.isTopLevelClass()
					&& !type.getSimpleName().equals("package-info") && !listed.contains(type.getName())) {
				missing.add(type.getName());
			}
		}
		assertThat(missing)
			.as("public types missing from the README's table of public types (add a line, or "
					+ "make the type package-private)")
			.isEmpty();
	}

	@Test
	void aPackageInfoThatCallsTheRestPackagePrivateNamesEveryPublicType() throws IOException {
		Set<String> unnamed = new TreeSet<>();
		Path sources = Path.of("src", "main", "java");
		Set<String> packages = new TreeSet<>();
		classes.forEach((type) -> packages.add(type.getPackageName()));
		for (String packageName : packages) {
			Path info = sources.resolve(packageName.replace('.', '/')).resolve("package-info.java");
			if (!Files.isRegularFile(info)) {
				continue;
			}
			String text = Files.readString(info);
			if (!text.contains("package-private")) {
				continue;
			}
			for (JavaClass type : classes) {
				if (type.getPackageName().equals(packageName) && type.isTopLevelClass()
						&& type.getModifiers().contains(JavaModifier.PUBLIC)
						&& !type.getSimpleName().equals("package-info")
						&& !Pattern.compile("\\b" + type.getSimpleName() + "\\b").matcher(text).find()) {
					unnamed.add(type.getName());
				}
			}
		}
		assertThat(unnamed)
			.as("public types that their package-info calls package-private (it names the public "
					+ "ones and says the rest is package-private)")
			.isEmpty();
	}

	@Test
	void theReadmesTableNamesOnlyTypesThatArePublic() throws IOException {
		Set<String> stale = new TreeSet<>();
		Set<String> packages = new TreeSet<>();
		classes.forEach((type) -> packages.add(type.getPackageName()));
		for (String name : listedTypes(Files.readString(readme()))) {
			String packageName = name.substring(0, name.lastIndexOf('.'));
			if (!packages.contains(packageName)) {
				// a type of another artifact (the test artifact)
				continue;
			}
			if (!classes.contain(name) || !classes.get(name).getModifiers().contains(JavaModifier.PUBLIC)) {
				stale.add(name);
			}
		}
		assertThat(stale).as("types in the README's table that do not exist or are not public").isEmpty();
	}

	/**
	 * The rows of the table under "The public types": their first column, without type
	 * parameters.
	 */
	static Set<String> listedTypes(String readme) {
		int start = readme.indexOf("The public types, one line each:");
		assertThat(start).as("the README's table of public types").isNotNegative();
		Set<String> names = new TreeSet<>();
		Matcher row = Pattern.compile("^\\| `(dev\\.listwatch\\.[\\w.]+)(<[^`]*>)?` \\|", Pattern.MULTILINE)
			.matcher(readme);
		int header = readme.indexOf("|---|", start);
		assertThat(header).as("the table's header").isPositive();
		int lastEnd = readme.indexOf('\n', header);
		row.region(lastEnd, readme.length());
		while (row.find()) {
			// the table ends at the first line that is not one of its rows
			if (readme.substring(lastEnd, row.start()).contains("\n\n")) {
				break;
			}
			names.add(row.group(1));
			lastEnd = row.end();
		}
		return names;
	}

	private static Path readme() {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("autoconfigure"))) {
				return dir.resolve("README.md");
			}
		}
		throw new IllegalStateException("README.md of the project not found above " + Path.of("").toAbsolutePath());
	}

	/**
	 * A slice per package under {@code dev.listwatch}, the root package being one too.
	 */
	private static final class PackageSlices implements SliceAssignment {

		private static final List<String> ROOT = List.of("dev", "listwatch");

		@Override
		public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
			String name = javaClass.getPackageName();
			if (!name.equals("dev.listwatch") && !name.startsWith("dev.listwatch.")) {
				return SliceIdentifier.ignore();
			}
			return SliceIdentifier.of(name);
		}

		@Override
		public String getDescription() {
			return "packages of " + String.join(".", ROOT);
		}

	}

	/** A slice per top-level class of one package, its nested classes included. */
	private static final class ClassSlices implements SliceAssignment {

		private final String packageName;

		ClassSlices(String packageName) {
			this.packageName = packageName;
		}

		@Override
		public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
			if (!javaClass.getPackageName().equals(this.packageName)) {
				return SliceIdentifier.ignore();
			}
			JavaClass topLevel = javaClass;
			while (topLevel.getEnclosingClass().isPresent()) {
				topLevel = topLevel.getEnclosingClass().get();
			}
			return SliceIdentifier.of(topLevel.getSimpleName());
		}

		@Override
		public String getDescription() {
			return "classes of " + this.packageName;
		}

	}

}
