package dev.listwatch.client;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class DecodeMessagesTests {

	@Test
	void pointsAtTheValueThatFailedEscapingTildeAndSlash() {
		JacksonException ex = catchThrowableOfType(JacksonException.class,
				() -> JsonMapper.shared().readValue("{\"spec\":{\"a/b~c\":[1,2,\"three\"]}}", Wrapper.class));
		assertThat(DecodeMessages.pointer(ex)).isEqualTo("/spec/a~1b~0c/2");
		assertThat(DecodeMessages.reason(ex, Wrapper.class)).isEqualTo("not a valid value of Integer")
			.doesNotContain("three");
	}

	@Test
	void namesWhatAMetadataOnlyListWatchGotCuttingLongKinds() {
		assertThat(DecodeMessages.notMetadataOnly("the list", "PodList", "PartialObjectMetadataList"))
			.hasMessageStartingWith("the list is a PodList, not a PartialObjectMetadataList as a metadata-only");
		assertThat(DecodeMessages.notMetadataOnly("the list", null, "PartialObjectMetadataList"))
			.hasMessageStartingWith("the list is an object without a kind, not a PartialObjectMetadataList");
		assertThat(DecodeMessages.notMetadataOnly("the list", "K".repeat(50), "PartialObjectMetadataList"))
			.hasMessageStartingWith("the list is a " + "K".repeat(40) + "..., not");
	}

	@Test
	void putsTheRightArticleBeforeAWord() {
		assertThat(DecodeMessages.article("ADDED")).isEqualTo("an ");
		assertThat(DecodeMessages.article("MODIFIED")).isEqualTo("a ");
		assertThat(DecodeMessages.article("")).isEqualTo("a ");
	}

	record Wrapper(Map<String, List<Integer>> spec) {
	}

}
