package dev.listwatch.autoconfigure;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's table of a watch's keys is generated from
 * {@link ListwatchProperties.Watch} ({@code scripts/properties-table.py --readme}): it
 * names every key of the class, in its order, and no other, so a key added without
 * regenerating it fails here.
 */
class ReadmeWatchKeysTests {

	@Test
	void theReadmeListsEveryKeyOfAWatchInOrder() throws IOException {
		String readme = Files.readString(Path.of("..", "README.md"));
		int start = readme.indexOf("<!-- watch-keys:start -->");
		int end = readme.indexOf("<!-- watch-keys:end -->");
		assertThat(start).as("the README's watch-keys markers").isPositive();
		assertThat(end).isGreaterThan(start);
		Matcher row = Pattern.compile("(?m)^\\| `([a-z-]+)` \\|").matcher(readme.substring(start, end));
		List<String> documented = new ArrayList<>();
		while (row.find()) {
			documented.add(row.group(1));
		}
		List<String> keys = Arrays.stream(ListwatchProperties.Watch.class.getDeclaredFields())
			.filter((field) -> !Modifier.isStatic(field.getModifiers()))
			.map(Field::getName)
			.map((name) -> name.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT))
			.toList();
		assertThat(documented)
			.as("run: ./mvnw -q -pl autoconfigure compile && python3 scripts/properties-table.py --readme")
			.containsExactlyElementsOf(keys);
	}

}
