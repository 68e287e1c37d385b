"""What a message claims about a loader's lifecycle and the draw it names: repetition "every
epoch" only where the program reads the loader more than once (a single pass, a smoke test or
one evaluation, starts its workers once); the draw and construction that run, and the option a
draw needs when the defaults run none."""

from __future__ import annotations

from fixture_cases import ROOT, Case
from seedlint.engine import Engine


def messages(case_path, tmp_path):
    case = Case(case_path.parent.name, case_path.name if case_path.is_dir() else case_path.stem, case_path)
    project = case.install(tmp_path)
    return [d.message for d in Engine(case.settings_for(project)).check([str(project)]).diagnostics]


def test_a_loader_read_in_one_pass_claims_no_repetition_across_epochs(tmp_path):
    found = messages(ROOT / "SDL001" / "several_workers_single_pass", tmp_path)
    assert len(found) == 1
    assert "every worker starts from the same copy" in found[0]
    assert "epoch" not in found[0]


def test_a_loader_read_every_epoch_claims_the_repetition(tmp_path):
    found = messages(ROOT / "SDL001" / "basic_getitem.py", tmp_path)
    assert len(found) == 1 and "epochs repeat them too" in found[0]


def test_a_factory_loader_is_judged_by_the_passes_of_the_context_whose_draw_runs(tmp_path):
    """Training builds the loader once and a step loop in another module reads it in one pass;
    evaluation calls the same factory again at every evaluation, but its dataset draws nothing."""
    found = messages(ROOT / "SDL001" / "factory_loader_read_in_one_pass_by_training_while_evaluation_rebuilds_it", tmp_path)
    assert len(found) == 1
    assert "every worker starts from the same copy" in found[0] and "epoch" not in found[0]
    found = messages(ROOT / "SDL001" / "factory_loader_read_every_epoch_while_evaluation_rebuilds_it", tmp_path / "epochs")
    assert len(found) == 1 and "epochs repeat them too" in found[0]
    # A statistics script reads the factory's loader once; training reads it every epoch.
    found = messages(ROOT / "SDL001" / "factory_loader_read_once_by_one_script_and_every_epoch_by_another", tmp_path / "two")
    assert len(found) == 1 and "epochs repeat them too" in found[0]


def test_an_epoch_loop_that_draws_from_numpy_in_the_main_process_claims_no_repetition(tmp_path):
    # mixing.mix_batch draws np.random.beta for every batch of every epoch.
    found = messages(ROOT / "SDL001" / "mixup_weight_drawn_in_the_main_process_each_batch", tmp_path)
    assert len(found) == 1
    assert "every worker starts from the same copy" in found[0] and "epoch" not in found[0]


def test_a_loop_that_may_read_either_of_two_loaders_names_both(tmp_path):
    found = messages(ROOT / "SDL009" / "loader_chosen_by_option_names_each_candidate", tmp_path)
    assert len(found) == 1
    assert "of the DataLoader at data.py:26 or data.py:32 (the loop may read either)" in found[0]


def test_a_worker_count_only_an_undocumented_option_sets_is_stated_as_a_condition(tmp_path):
    found = messages(ROOT / "SDL001" / "workers_only_from_an_undocumented_option", tmp_path)
    assert len(found) == 1
    assert found[0].endswith(
        "(only when the program runs with `--num-workers` above 0: its default starts no workers, and no command the "
        "project documents passes it)"
    )


def test_options_reach_a_function_torch_multiprocessing_spawn_runs(tmp_path):
    # mp.spawn(main_worker, args=(args.gpus, args)) calls main_worker(i, args.gpus, args).
    found = messages(ROOT / "SDL002" / "spawned_worker_options_bound_from_spawn_args", tmp_path)
    assert len(found) == 1
    assert found[0].endswith(
        "(only when the program runs with `--workers` above 0: its default starts no workers, and no command the "
        "project documents passes it)"
    )


def test_a_dataset_class_only_a_non_default_option_picks_is_stated_as_a_condition(tmp_path):
    # Data = data_dict[args.data] with --data defaulting to "clean": `Noisy` needs --data noisy.
    found = messages(ROOT / "SDL001" / "dataset_class_picked_only_by_a_non_default_option", tmp_path)
    assert len(found) == 1
    assert found[0].endswith("(`Noisy` is built only when the program runs with `--data noisy`)")


def test_the_hugging_face_trainers_workers_from_a_parsed_dataclass_are_an_option(tmp_path):
    # HfArgumentParser(PromptArguments).parse_args_into_dataclasses()[0] fills
    # dataloader_num_workers from `--dataloader_num_workers`, TrainingArguments' default 0.
    found = messages(ROOT / "SDL006" / "hf_trainer_workers_only_from_a_parsed_dataclass_option", tmp_path)
    assert len(found) == 1
    assert found[0].endswith(
        "(only when the program runs with `--dataloader_num_workers` above 0: its default starts no workers, and no "
        "command the project documents passes it)"
    )
    found = messages(ROOT / "SDL006" / "hf_trainer_workers_a_documented_command_passes_to_a_parsed_dataclass", tmp_path / "documented")
    assert len(found) == 1
    assert "(the workers start when the program runs with `--dataloader_num_workers 4`, as README.md:6 does" in found[0]


def test_a_unix_only_program_that_needs_cuda_is_linux_only(tmp_path):
    # signal.SIGUSR1 rules Windows out, model.cuda() macOS: only Python 3.14's forkserver pickles.
    found = messages(ROOT / "SDL006" / "local_worker_init_in_a_unix_cuda_program_any_python", tmp_path)
    assert len(found) == 1
    assert ("under the forkserver start method (Linux's default from Python 3.14; the program is Linux-only: "
            "train.py:37 uses `signal.SIGUSR1`, which does not exist on Windows, and the program calls `clips.cuda()` "
            "at train.py:29, which no macOS build of torch runs)") in found[0]


def test_a_loader_generator_seeded_alike_names_the_loader_and_the_ranks(tmp_path):
    found = messages(ROOT / "SDL008" / "lightning_loader_generator_seeded_alike_on_every_rank", tmp_path)
    assert found == [
        "`self.generator.manual_seed(...)` seeds the generator of the DataLoader at train.py:36 alike on every rank the "
        "`pl.Trainer(...)` at train.py:54 starts: the loader draws its workers' base seed from it, so worker k of every "
        "rank gets the same seed and draws the same augmentations; add the rank to the seed (e.g. `seed + rank`)"
    ]


def test_a_worker_count_a_documented_command_sets_cites_the_command(tmp_path):
    found = messages(ROOT / "SDL001" / "workers_passed_by_documented_script", tmp_path)
    assert len(found) == 1
    assert found[0].endswith(
        "(the workers start when the program runs with `--num_workers 8`, as scripts/train_cluster.sh:8 does; the "
        "option's default starts none)"
    )


def test_a_worker_count_a_configuration_file_sets_cites_the_file(tmp_path):
    found = messages(ROOT / "SDL001" / "workers_set_in_a_loaded_configuration_file", tmp_path)
    assert len(found) == 1 and found[0].endswith("(4 workers, set at train.yaml:3)")


def test_a_loader_class_that_keeps_one_iterator_claims_no_repetition_across_epochs(tmp_path):
    """A DataLoader subclass that starts its workers in ``__init__`` (``self.iterator =
    super().__iter__()``) and serves every epoch from them restarts nothing."""
    found = messages(ROOT / "SDL011" / "imgaug_loader_keeps_its_workers", tmp_path)
    assert len(found) == 1
    assert "every worker starts from the same copy and draws the same augmentations" in found[0]
    assert "epoch" not in found[0]
    assert messages(ROOT / "SDL003" / "clean_loader_keeps_its_workers", tmp_path / "sdl003") == []


def test_a_worker_count_several_documented_configurations_set_names_one_and_counts_the_others(tmp_path):
    from seedlint.config import load_settings

    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "small.yaml").write_text("workers: 4\n")
    (tmp_path / "configs" / "large.yaml").write_text("workers: 6\n")
    (tmp_path / "requirements.txt").write_text("torch==1.8.1\nnumpy==1.21.6\npyyaml\n")
    (tmp_path / "README.md").write_text(
        "`python train.py --config configs/small.yaml`\n\n`python train.py --config configs/large.yaml`\n"
    )
    (tmp_path / "train.py").write_text(
        "import argparse\n\nimport numpy as np\nimport yaml\nfrom torch.utils.data import DataLoader, Dataset\n\n\n"
        "class Jitter(Dataset):\n    def __len__(self):\n        return 64\n\n    def __getitem__(self, index):\n"
        "        return np.random.rand()\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--config')\n    args = parser.parse_args()\n    with open(args.config) as f:\n"
        "        config = yaml.safe_load(f)\n    for epoch in range(10):\n"
        "        for batch in DataLoader(Jitter(), num_workers=config['workers']):\n            pass\n\n\nmain()\n"
    )
    found = [d.message for d in Engine(load_settings([str(tmp_path)])).check([str(tmp_path)]).diagnostics]
    assert len(found) == 1
    assert found[0].endswith("(4 workers, set at small.yaml:1; 1 other configuration file sets it too)") or found[0].endswith(
        "(6 workers, set at large.yaml:1; 1 other configuration file sets it too)"
    )


def test_a_shared_loader_factory_names_the_construction_whose_split_draws(tmp_path):
    found = messages(ROOT / "SDL001" / "split_in_a_tuple_names_the_training_construction", tmp_path)
    assert len(found) == 1
    assert "reached from `Sweeps` built at train.py:7)" in found[0]


def test_the_draw_named_is_one_the_defaults_run_and_a_flag_only_draw_says_so(tmp_path):
    found = messages(ROOT / "SDL001" / "eval_draw_only_under_a_flag_of_a_global_args", tmp_path)
    assert len(found) == 2
    train, val = found
    assert "(`randint` in `SegmentClips._train_indices`, videos.py:23," in train and "--dense" not in train
    assert "(`np.random.randint` in `SegmentClips._eval_indices`, videos.py:27," in val
    assert val.endswith("(the draw runs only when the program runs with `--dense`)")


def test_a_loader_an_or_test_builds_names_its_options_as_alternatives(tmp_path):
    # `if args.val_intervals < args.num_epochs or args.test:` fails with the defaults and holds
    # when any one of the three options is changed.
    found = messages(ROOT / "SDL001" / "validation_loader_built_when_either_option_asks_for_it", tmp_path)
    assert len(found) == 1
    assert found[0].endswith("(the draw runs only when the program runs with `--num_epochs`, `--val_intervals` or `--test`)")


def test_alternative_options_beside_a_required_one_read_as_one_of_them():
    from seedlint.analysis.draw_conditions import Either, spelled_options

    assert spelled_options(["--tracking", Either(["--num_epochs", "--test"])]) == "`--tracking` and one of `--num_epochs` or `--test`"
    assert spelled_options([Either(["--a", "--b", "--c"])]) == "`--a`, `--b` or `--c`"


def test_a_draw_behind_an_option_value_names_the_value_through_a_builder_table(tmp_path):
    # BUILDERS[corpus]["train"](args, clips): the builders get the program's args, so the
    # `order == 2` branch is known to need `--train_order 2`.
    found = messages(ROOT / "SDL001" / "draw_only_under_an_option_value_through_a_builder_table", tmp_path)
    assert len(found) == 2
    train, evaluation = found
    assert "reached from `ClipTrainSet` built at builders.py:8" in train
    assert train.endswith("(the draw runs only when the program runs with `--train_order 2`)")
    assert evaluation.endswith("(the draw runs only when the program runs with `--eval_order 2`)")


def test_loaders_a_loop_reads_one_after_another_are_named_as_each(tmp_path):
    found = messages(ROOT / "SDL009" / "training_and_validation_samplers_read_each_epoch", tmp_path)
    assert len(found) == 1
    assert found[0].startswith(
        "the DistributedSamplers of the DataLoaders at train.py:23 and train.py:24 (the loop reads each) are iterated"
    )


def test_a_sampler_read_only_by_the_evaluation_a_training_loop_calls_is_not_named(tmp_path):
    found = messages(ROOT / "SDL009" / "training_sampler_named_not_the_one_an_evaluation_function_reads", tmp_path)
    assert len(found) == 1
    assert found[0].startswith("the DistributedSampler `train_sampler` of the DataLoader at train.py:25 is iterated")


def test_a_draw_in_an_object_built_only_under_a_flag_names_the_flag(tmp_path):
    # The cropping object exists only under `if augment:`; the options reach the builder as
    # `**{**vars(args), ...}` through a helper that rewrites `config["%s_root" % key]`.
    found = messages(ROOT / "SDL001" / "augmenting_transform_built_only_under_a_flag_of_vars_args", tmp_path)
    assert len(found) == 1
    assert "(`np.random.randint` in `RandomCropLongEdge.__call__`, utils.py:31," in found[0]
    assert found[0].endswith("(the draw runs only when the program runs with `--augment`)")


def test_a_callable_kept_only_under_an_option_names_the_option(tmp_path):
    found = messages(ROOT / "SDL006" / "lambda_appended_only_under_a_rotation_option", tmp_path)
    assert len(found) == 1
    assert "holding a lambda (data.py:9, kept only when the program runs with `--rotation`), which cannot be pickled" in found[0]


def test_a_draw_both_arms_of_an_option_test_reach_needs_no_option(tmp_path):
    # `if self.single_view: return blend(...)` comes first, but the other arm, which the
    # defaults take, calls the same drawing function.
    found = messages(ROOT / "SDL001" / "draw_reached_from_both_arms_of_an_option_test", tmp_path)
    assert len(found) == 1
    assert "(`np.random.dirichlet` in `blend`, train.py:10," in found[0]
    assert "--single-view" not in found[0] and "runs only when" not in found[0]


def test_a_pipeline_several_loaders_copy_is_named_at_the_shuffled_training_loader(tmp_path):
    # evaluate.py's in-order loader comes first in the project, but train.py's shuffled one is
    # the copy that repeats the training augmentations.
    found = messages(ROOT / "SDL011" / "imgaug_pipeline_named_at_the_training_loader", tmp_path)
    assert len(found) == 1
    assert "for `LaneImages` loaded at train.py:10, every worker starts from the same copy" in found[0]


def test_a_lambda_kept_only_when_a_count_option_is_zero_names_the_value_and_where_spawn_is_default(tmp_path):
    # `if args.random_crops:` (an int, default 1) fails only with `--random_crops 0`; on
    # Python 3.6 macOS still forks, so only Windows spawns by default.
    found = messages(ROOT / "SDL006" / "lambda_kept_only_when_a_count_option_is_zero", tmp_path)
    assert len(found) == 1
    assert "kept only when the program runs with `--random_crops 0`)" in found[0]
    assert "under the spawn start method (the default on Windows; Linux forks" in found[0]


def test_of_two_lambdas_behind_an_option_test_the_one_the_defaults_keep_is_named(tmp_path):
    found = messages(ROOT / "SDL006" / "lambda_named_is_the_one_the_defaults_keep", tmp_path)
    assert len(found) == 1
    assert "holding a lambda (extract_codes.py:32, and 1 more it may hold)" in found[0]


def test_a_lambda_a_helper_makes_for_one_value_names_the_value_the_holding_dataset_needs(tmp_path):
    # build_transform(prep) is also called by translate.py, whose default is "no_resize"; the
    # dataset's own call passes `--train_prep`, whose default keeps no lambda.
    found = messages(ROOT / "SDL006" / "lambda_kept_by_the_dataset_only_for_one_option_value", tmp_path)
    assert len(found) == 1
    assert "holding a lambda (data.py:15, kept only when the program runs with `--train_prep no_resize`)" in found[0]


def test_a_dataset_a_name_picks_is_named_as_the_subclass_not_the_base_it_inherits_getitem_from(tmp_path):
    found = messages(ROOT / "SDL001" / "dataset_picked_by_name_inherits_the_drawing_getitem", tmp_path)
    assert len(found) == 1
    assert "reached from `HighwayScenes`" in found[0] and "DrivingScenes" not in found[0]


def test_a_library_transform_that_draws_in_old_releases_is_named_with_the_releases_and_the_option_building_it(tmp_path):
    # `hard=args.augmentations == "hard"` is passed down to the builder's `if hard:` as a parameter.
    found = messages(ROOT / "SDL001" / "albumentations_0x_transform_drawing_from_numpy", tmp_path)
    assert len(found) == 1
    assert "(`A.MultiplicativeNoise` (as albumentations <1.2 does) in `BuildingTiles.__getitem__`, dataset.py:22," in found[0]
    assert found[0].endswith("(the draw runs only when the program runs with `--augmentations hard`)")


def test_a_library_range_that_includes_unaffected_releases_is_stated_as_declared(tmp_path):
    found = messages(ROOT / "SDL011" / "albumentations_declared_with_releases_before_the_generators", tmp_path)
    assert len(found) == 1
    assert found[0].endswith("keep these generators; the project allows albumentations >=1.3)")
    (tmp_path / "undeclared").mkdir()
    found = messages(ROOT / "SDL011" / "albumentations_undeclared.py", tmp_path / "undeclared")
    assert len(found) == 1 and found[0].endswith("; the project declares no version)")


def test_a_loader_module_every_program_loads_under_nccl_is_named_linux_only(tmp_path):
    found = messages(ROOT / "SDL006" / "loader_module_only_nccl_programs_load_on_python_3_14", tmp_path)
    assert len(found) == 1
    assert (
        "under the forkserver start method (Linux's default from Python 3.14; the program is Linux-only: every program "
        "that loads vision/data/loaders.py (vision/run/evaluate.py and 1 other) is: vision/distributed.py:9 uses "
        "`torch.distributed.init_process_group(backend=nccl)`"
    ) in found[0]


def test_a_seeding_only_an_option_runs_says_so_with_options_from_a_parent_parser(tmp_path):
    # `ArgumentParser(parents=[probe_options()])`: `--seed` defaults to None in the parent.
    found = messages(ROOT / "SDL008" / "seed_only_under_an_option_of_a_parent_parser", tmp_path)
    assert len(found) == 1
    assert found[0].endswith(
        "draws the same augmentations (the seeding runs only when the program runs with `--seed`); "
        "add the rank to the seed (e.g. `seed + rank`), or, where every rank must draw the same initial values "
        "(state that DDP does not broadcast), give the DataLoader `generator=torch.Generator().manual_seed(seed + rank)`"
    )


def test_a_concrete_base_a_name_may_pick_is_named_itself(tmp_path):
    found = messages(ROOT / "SDL001" / "dataset_picked_by_name_from_a_concrete_base_and_its_subclass", tmp_path)
    assert len(found) == 1 and "reached from `DrivingScenes`" in found[0]


def test_a_library_transform_in_a_pipeline_a_helper_builds_under_an_option_names_the_option(tmp_path):
    # `if level == "hard": self.colors = hard_colors()`: the test is around the helper's call.
    found = messages(ROOT / "SDL001" / "albumentations_0x_transform_in_a_pipeline_chosen_by_level", tmp_path)
    assert len(found) == 1
    assert "(`A.MultiplicativeNoise` (as albumentations <1.2 does) in `BuildingTiles.__getitem__`" in found[0]
    assert found[0].endswith("(the draw runs only when the program runs with `--augmentations hard`)")


def test_a_library_transform_built_under_a_prefix_test_names_the_prefix_the_option_needs(tmp_path):
    # `if policy.startswith("rand"):` with `--policy` defaulting to "original".
    found = messages(ROOT / "SDL001" / "timm_randaugment_behind_a_policy_prefix", tmp_path)
    assert len(found) == 1
    assert "(`rand_augment_transform` in `StrongAugment.__call__`, transforms.py:19," in found[0]
    assert found[0].endswith("(the draw runs only when the program runs with `--policy rand...`)")
    (tmp_path / "default").mkdir()
    found = messages(ROOT / "SDL001" / "timm_randaugment_drawing_from_numpy", tmp_path / "default")
    assert len(found) == 1 and "the draw runs only" not in found[0]


def test_a_library_factory_built_to_draw_says_which_argument_makes_it_draw(tmp_path):
    # `create_transform(is_training=True, auto_augment=args.aa)` with `--aa` defaulting to a RandAugment policy.
    found = messages(ROOT / "SDL001" / "timm_create_transform_with_a_rand_augment_policy", tmp_path)
    assert len(found) == 1
    assert "(`create_transform` (its `auto_augment` policy draws with `np.random`) in `build_transform`, datasets.py:11," in found[0]
    assert "reached from `ImageFolder` built at datasets.py:30" in found[0]


def test_of_the_library_datasets_an_option_picks_the_default_one_is_named(tmp_path):
    # `--data-set` defaults to IMNET: `CIFAR100(...)`, built first in the source under "CIFAR", is not named.
    found = messages(ROOT / "SDL001" / "timm_create_transform_for_a_dataset_chosen_by_option", tmp_path)
    assert len(found) == 1 and "reached from `ImageFolder` built at datasets.py:33" in found[0]


def test_a_loader_built_only_under_an_option_says_which(tmp_path):
    found = messages(ROOT / "SDL006" / "lambda_collate_of_a_loader_built_only_for_one_phase", tmp_path)
    assert len(found) == 1
    assert found[0].endswith("(this DataLoader is built only when the program runs with `--phase analysis`)")


def test_of_the_datasets_holding_a_local_function_the_one_the_defaults_build_is_named(tmp_path):
    # `PseudoLabeled` is built first in the source, but only with `--algorithm pseudo_label`.
    found = messages(ROOT / "SDL006" / "local_function_held_by_the_dataset_an_option_picks", tmp_path)
    assert len(found) == 1 and found[0].startswith("the dataset is an object of `Reviews` holding `transform`")


def test_a_program_that_needs_cuda_is_not_said_to_spawn_on_macos(tmp_path):
    # `torch.device("cuda")` under no `if` in main(): torch has no CUDA build for macOS.
    found = messages(ROOT / "SDL006" / "lambda_on_a_dataset_of_a_program_that_needs_cuda", tmp_path)
    assert len(found) == 1
    assert "(the default on Windows and Linux from Python 3.14; not macOS, where torch has no CUDA build and " \
        "the program calls `torch.device('cuda')` at train.py:25)" in found[0]


def test_a_script_that_needs_cuda_and_calls_the_loader_helper_is_not_said_to_spawn_on_macos(tmp_path):
    # The loader is built in scans/loading.py; the script calling it needs CUDA in main().
    found = messages(ROOT / "SDL006" / "lambda_dataset_built_by_a_helper_for_a_script_that_needs_cuda", tmp_path)
    assert len(found) == 1
    assert "(the default on Windows and Linux from Python 3.14; not macOS, where torch has no CUDA build and " \
        "the program calls `torch.device('cuda')` at train.py:9)" in found[0]


def test_a_program_importing_only_settings_from_a_script_that_starts_nccl_is_not_linux_only(tmp_path):
    # validate.py imports CONFIG and prepare from train.py; only train.run starts NCCL.
    found = messages(ROOT / "SDL006" / "lambda_dataset_of_a_program_importing_only_settings_from_a_nccl_script", tmp_path)
    assert len(found) == 1
    assert "(the default on Windows, macOS, and Linux from Python 3.14)" in found[0] and "Linux-only" not in found[0]
    other = tmp_path / "other"
    other.mkdir()
    found = messages(ROOT / "SDL006" / "lambda_dataset_of_a_program_running_a_nccl_scripts_entry", other)
    assert len(found) == 1
    assert "the program is Linux-only: train.py:14 uses `torch.distributed.init_process_group(backend=nccl)`" in found[0]


def test_a_library_pipeline_built_only_under_an_option_is_a_warning_that_names_it(tmp_path):
    found = messages(ROOT / "SDL011" / "imgaug_pipeline_built_only_under_an_option", tmp_path)
    assert len(found) == 1
    assert found[0].endswith("(the pipeline is built only when the program runs with `--augment`)")


def test_monai_reseeding_that_misses_the_pipeline_says_why_and_what_reaches_it(tmp_path):
    found = messages(ROOT / "SDL011" / "monai_pipelines_held_by_own_transform_in_a_cache_dataset.py", tmp_path)
    assert len(found) == 2
    assert all("`CacheDataset` wraps `ModalityTransform` in a `Compose`" in message for message in found)
    assert "make `ModalityTransform` a `monai.transforms.Randomizable`" in found[0]
    assert "such as `self.ct`, which `ModalityTransform.__call__` runs" in found[0]
    assert "load it with `monai.data.DataLoader`" not in found[0]

    (tmp_path / "randomizable").mkdir()
    found = messages(ROOT / "SDL011" / "monai_transform_of_a_decathlon_dataset.py", tmp_path / "randomizable")
    assert len(found) == 1
    assert "`DecathlonDataset` is itself `Randomizable`" in found[0]
    assert "info.dataset.transform.set_random_state(seed=info.seed % 2**32)" in found[0]


def test_accelerate_processes_name_the_accelerator_and_the_device_specific_seed(tmp_path):
    found = messages(ROOT / "SDL008" / "accelerate_same_seed_on_every_process", tmp_path)
    assert len(found) == 1
    assert "same seed on every rank (the `Accelerator(...)` at train.py:32 joins the process group" in found[0]
    assert found[0].endswith("pass `device_specific=True` (once the `Accelerator` is built), which adds each process's index to the seed")


def test_a_loader_class_an_option_picks_names_the_class_that_copies_the_pipeline(tmp_path):
    found = messages(ROOT / "SDL011" / "monai_pipeline_under_a_loader_class_an_option_picks", tmp_path)
    assert len(found) == 1
    assert found[0].endswith(
        "(when the call builds `timm.data.loader.MultiEpochsDataLoader`; `monai.data.DataLoader`, which it may build "
        "instead, reseeds them)"
    )
    assert "epoch" not in found[0].split(";")[0], "timm's loader keeps its workers: no epoch repeats"

    (tmp_path / "timm").mkdir()
    found = messages(ROOT / "SDL011" / "monai_pipeline_under_timm_multi_epochs_loader", tmp_path / "timm")
    assert len(found) == 1 and "every worker starts from the same copy and draws the same augmentations;" in found[0]
    assert "every epoch repeats" not in found[0]


def test_a_set_epoch_call_no_caller_can_reach_is_named(tmp_path):
    found = messages(ROOT / "SDL009" / "set_epoch_under_a_flag_that_is_always_true", tmp_path)
    assert len(found) == 1
    assert "without `set_epoch` (the call at train.py:26 never runs: its `if` test fails in every call of `main`)" in found[0]


def test_ranks_seeded_alike_whose_workers_only_an_option_starts_are_a_warning_naming_it(tmp_path):
    found = messages(ROOT / "SDL008" / "accelerate_workers_only_from_an_option", tmp_path)
    assert len(found) == 1
    assert "(only when the program runs with `--dataloader-workers` above 0" in found[0]


def test_ranks_seeded_alike_name_the_dataset_that_draws_when_a_name_picks_it(tmp_path):
    found = messages(ROOT / "SDL008" / "accelerate_dataset_picked_by_name_of_which_one_draws", tmp_path)
    assert len(found) == 1
    assert "(when the loader loads `ShortSeries`; the other datasets it may load draw nothing there)" in found[0]


def test_a_dataset_only_an_option_builds_is_named_with_the_option(tmp_path):
    found = messages(ROOT / "SDL011" / "monai_smart_cache_dataset_an_option_picks", tmp_path)
    assert len(found) == 1
    assert found[0].endswith("(`SmartCacheDataset` is built only when the program runs with `--smartcache`)")


def test_a_dataset_class_named_by_a_yacs_key_is_named_as_built_and_workers_cite_the_experiment_file(tmp_path):
    """``eval(cfg.DATASET.DATASET)`` where each merged experiment file names one class: the
    class built is named plainly, not as one a run-time name may pick, and the worker count
    cites the file that sets it."""
    found = messages(ROOT / "SDL001" / "dataset_class_evaluated_from_a_yacs_key_each_experiment_file_sets", tmp_path)
    assert len(found) == 1
    assert "reached from `CocoKeypoints` built at build.py:10" in found[0]
    assert "may pick" not in found[0]
    assert found[0].endswith("(4 workers, set at w32_256x192.yaml:2; 1 other configuration file sets it too)")


def test_a_draw_in_a_collate_object_names_the_collate_fn(tmp_path):
    found = messages(ROOT / "SDL001" / "collate_object_cuts_random_segments.py", tmp_path)
    assert len(found) == 1
    assert "(`np.random.randint` in `SegmentCollater.__call__`" in found[0]
    assert "the loader's `collate_fn`, a `SegmentCollater`, which runs in the workers" in found[0]


def test_an_option_the_program_refuses_to_start_without_is_no_condition_of_the_draw(tmp_path):
    """``if args.train_dir is None: raise ...`` before the loader: every run that builds it
    passed ``--train-dir``, so the finding is an error that states no option."""
    case = ROOT / "SDL001" / "dataset_built_after_the_program_refuses_to_start_without_its_option"
    found = messages(case, tmp_path)
    assert len(found) == 1 and "runs only when" not in found[0]
    project = Case(case.parent.name, case.name, case).install(tmp_path / "again")
    diagnostics = Engine(Case(case.parent.name, case.name, case).settings_for(project)).check([str(project)]).diagnostics
    assert [d.severity for d in diagnostics] == ["error"]


def test_an_imgaug_augmenter_built_in_the_worker_names_the_releases_that_draw_alike(tmp_path):
    """Undeclared imgaug: only releases before 0.3 start every worker's global RNG from the
    same seed, so the message says so."""
    found = messages(ROOT / "SDL011" / "imgaug_built_in_getitem.py", tmp_path)
    assert len(found) == 1
    assert "(on imgaug < 0.3, whose global RNG starts from seed 42 in every worker)" in found[0]


def test_a_hugging_face_dataset_is_named_so_and_pickles_before_the_collate_fn(tmp_path):
    found = sorted(messages(ROOT / "SDL006" / "hf_dataset_holds_a_local_transform", tmp_path))
    assert len(found) == 2
    dataset, collate = found[1], found[0]
    assert dataset.startswith("the dataset is a Hugging Face dataset holding `tokenize`, a function defined inside `make_loader`")
    assert "'make_loader.<locals>.tokenize'" in dataset
    assert collate.startswith("`collate_fn` is `collate`")
    assert collate.endswith("; the dataset is pickled first and fails first (captions.py:8), so this error comes once it is mended")

    (tmp_path / "numpy").mkdir()
    found = messages(ROOT / "SDL001" / "hf_dataset_set_transform_draws_numpy", tmp_path / "numpy")
    assert len(found) == 1
    assert "(`np.random.rand` in `add_noise`, data.py:10, reached from `Dataset` built at data.py:18)" in found[0]


def test_a_project_sampler_keyed_by_its_epoch_is_named_as_a_sampler_and_says_why(tmp_path):
    found = messages(ROOT / "SDL009" / "own_epoch_keyed_sampler_never_given_its_epoch", tmp_path)
    assert found == [
        "the sampler `BlockShardSampler(...)` of the DataLoader at train.py:12 is iterated in every epoch without "
        "`set_epoch` (its `__iter__` orders by the epoch only `set_epoch` changes): every epoch uses the same shuffle "
        "order on every rank; call `set_epoch(epoch)` at the start of each epoch"
    ]


def test_lightning_worker_seeding_that_a_monai_loader_passes_over_says_why(tmp_path):
    found = messages(ROOT / "SDL008" / "lightning_workers_seeding_passes_over_a_monai_loader", tmp_path)
    assert len(found) == 1
    assert found[0].startswith("`pl.seed_everything(..., workers=True)` gives every rank the same seed, and Lightning adds")
    assert "the DataLoader at train.py:22 is MONAI's `DataLoader`, which sets its own `worker_init_fn`" in found[0]
    assert found[0].endswith("mix the global rank into that loader's worker seeds")
