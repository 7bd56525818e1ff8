// The reference half of the motion-matching search comparison
// (benches/mm_reference/run.sh): orangeduck/Motion-Matching's motion_matching_search
// (database.h, MIT licence, compiled from its own sources; nothing of it is copied here)
// on stridescope's normalised features, read from the input `mm_bench --export` wrote.
// Top 1, no current frame (best_index -1), no transition cost, no frames skipped at range
// ends or around the current one: the ranges are exactly the frames stridescope may land
// on. Prints `reference SET NS_PER_QUERY CHECKSUM` per query set (median of the batches)
// and writes every answer to DIR/answers_reference.txt.
// database.h names the character's bones (its feature builder, unused here).
#include "character.h"
#include "database.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

static const int BATCHES = 5;

static int read_i32(FILE* f) {
  int32_t v = 0;
  if (fread(&v, 4, 1, f) != 1) { fprintf(stderr, "mm_bench: truncated input\n"); exit(1); }
  return v;
}

static void read_f32s(FILE* f, float* out, size_t n) {
  if (fread(out, 4, n, f) != n) { fprintf(stderr, "mm_bench: truncated input\n"); exit(1); }
}

int main(int argc, char** argv) {
  if (argc != 2) { fprintf(stderr, "usage: mm_bench DIR\n"); return 1; }
  std::string dir = argv[1];
  FILE* f = fopen((dir + "/input.bin").c_str(), "rb");
  if (!f) { fprintf(stderr, "mm_bench: cannot read %s/input.bin\n", argv[1]); return 1; }
  int nframes = read_i32(f), dims = read_i32(f);
  database db;
  db.features.resize(nframes, dims);
  read_f32s(f, db.features.data, (size_t)nframes * dims);
  int nranges = read_i32(f);
  db.range_starts.resize(nranges);
  db.range_stops.resize(nranges);
  for (int i = 0; i < nranges; i++) db.range_starts(i) = read_i32(f);
  for (int i = 0; i < nranges; i++) db.range_stops(i) = read_i32(f);
  int nq = read_i32(f);
  std::vector<float> queries((size_t)2 * nq * dims);
  read_f32s(f, queries.data(), queries.size());
  fclose(f);
  // database_build_bounds counts frames by bone_positions' rows.
  db.bone_positions.resize(nframes, 1);
  database_build_bounds(db);

  FILE* answers = fopen((dir + "/answers_reference.txt").c_str(), "w");
  const char* sets[2] = {"random", "steady"};
  for (int s = 0; s < 2; s++) {
    std::vector<int> best(nq);
    std::vector<double> per_query;
    for (int batch = 0; batch <= BATCHES; batch++) {  // batch 0 warms up
      auto start = std::chrono::steady_clock::now();
      for (int q = 0; q < nq; q++) {
        int best_index = -1;
        float best_cost = FLT_MAX;
        slice1d<float> query(dims, queries.data() + ((size_t)s * nq + q) * dims);
        motion_matching_search(best_index, best_cost, db.range_starts, db.range_stops,
                               db.features, db.features_offset, db.features_scale,
                               db.bound_sm_min, db.bound_sm_max, db.bound_lr_min,
                               db.bound_lr_max, query, 0.0f, 0, 0);
        best[q] = best_index;
      }
      auto ns = std::chrono::duration<double, std::nano>(
                    std::chrono::steady_clock::now() - start).count();
      if (batch > 0) per_query.push_back(ns / nq);
    }
    std::sort(per_query.begin(), per_query.end());
    unsigned long long checksum = 0;
    for (int q = 0; q < nq; q++) {
      checksum += (unsigned long long)best[q];
      fprintf(answers, "%s %d\n", sets[s], best[q]);
    }
    printf("reference %s %.0f %llu\n", sets[s], per_query[BATCHES / 2], checksum);
    fflush(stdout);
  }
  fclose(answers);
  return 0;
}
