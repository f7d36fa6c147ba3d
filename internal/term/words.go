package term

import "strconv"

// Count is n followed by the word that agrees with it: "1 line", "2 lines".
func Count[N ~int | ~int64](n N, one, many string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Pick(n, one, many)
}

// Pick is the word (or verb) that agrees with n: Pick(1, "fails", "fail").
func Pick[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Nearest is the word among candidates that word most likely meant, for a
// did-you-mean: the closest by edit distance, when at most a third of its
// letters differ; "" when none is that close.
func Nearest(word string, candidates []string) string {
	best, bestD := "", len(word)/3+1
	for _, c := range candidates {
		if d := distance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
