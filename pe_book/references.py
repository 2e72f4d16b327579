"""The bibliography: every paper the book cites, keyed as pages cite them.

Pages write ``{{ cite: vaswani2017 }}`` for an inline citation and
``{{ references: vaswani2017, su2021 }}`` for a chapter's reference list; the
bibliography page lists them all. An unknown key fails the build.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["REFERENCES", "Reference"]


@dataclass(frozen=True)
class Reference:
    authors: str  # as printed in the bibliography
    short: str  # as cited inline: "Vaswani et al."
    year: int
    title: str
    venue: str
    url: str
    suffix: str = ""  # "a", "b": two works of one label and year, "Yang et al., 2024a"

    @property
    def cited_year(self) -> str:
        """The year as citations print it, with its suffix: ``"2024a"``."""
        return f"{self.year}{self.suffix}"


def _r(authors, short, year, title, venue, url, suffix=""):
    return Reference(authors, short, year, title, venue, url, suffix)


REFERENCES: dict[str, Reference] = {
    "vaswani2017": _r(
        "Ashish Vaswani, Noam Shazeer, Niki Parmar, Jakob Uszkoreit, Llion Jones, "
        "Aidan N. Gomez, Łukasz Kaiser, Illia Polosukhin",
        "Vaswani et al.",
        2017,
        "Attention Is All You Need",
        "NeurIPS 2017",
        "https://arxiv.org/abs/1706.03762",
    ),
    "gehring2017": _r(
        "Jonas Gehring, Michael Auli, David Grangier, Denis Yarats, Yann N. Dauphin",
        "Gehring et al.",
        2017,
        "Convolutional Sequence to Sequence Learning",
        "ICML 2017",
        "https://arxiv.org/abs/1705.03122",
    ),
    "shaw2018": _r(
        "Peter Shaw, Jakob Uszkoreit, Ashish Vaswani",
        "Shaw et al.",
        2018,
        "Self-Attention with Relative Position Representations",
        "NAACL 2018",
        "https://arxiv.org/abs/1803.02155",
    ),
    "vaswani2018": _r(
        "Ashish Vaswani, Samy Bengio, Eugene Brevdo, François Chollet, Aidan N. Gomez, "
        "Stephan Gouws, Llion Jones, Łukasz Kaiser, Nal Kalchbrenner, Niki Parmar, "
        "Ryan Sepassi, Noam Shazeer, Jakob Uszkoreit",
        "Vaswani et al.",
        2018,
        "Tensor2Tensor for Neural Machine Translation",
        "AMTA 2018",
        "https://arxiv.org/abs/1803.07416",
    ),
    "devlin2019": _r(
        "Jacob Devlin, Ming-Wei Chang, Kenton Lee, Kristina Toutanova",
        "Devlin et al.",
        2019,
        "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
        "NAACL 2019",
        "https://arxiv.org/abs/1810.04805",
    ),
    "radford2019": _r(
        "Alec Radford, Jeffrey Wu, Rewon Child, David Luan, Dario Amodei, Ilya Sutskever",
        "Radford et al.",
        2019,
        "Language Models are Unsupervised Multitask Learners",
        "OpenAI technical report",
        "https://cdn.openai.com/better-language-models/language_models_are_unsupervised_multitask_learners.pdf",
    ),
    "dai2019": _r(
        "Zihang Dai, Zhilin Yang, Yiming Yang, Jaime Carbonell, Quoc V. Le, Ruslan Salakhutdinov",
        "Dai et al.",
        2019,
        "Transformer-XL: Attentive Language Models Beyond a Fixed-Length Context",
        "ACL 2019",
        "https://arxiv.org/abs/1901.02860",
    ),
    "ott2019": _r(
        "Myle Ott, Sergey Edunov, Alexei Baevski, Angela Fan, Sam Gross, Nathan Ng, "
        "David Grangier, Michael Auli",
        "Ott et al.",
        2019,
        "fairseq: A Fast, Extensible Toolkit for Sequence Modeling",
        "NAACL 2019 (Demonstrations)",
        "https://arxiv.org/abs/1904.01038",
    ),
    "raffel2020": _r(
        "Colin Raffel, Noam Shazeer, Adam Roberts, Katherine Lee, Sharan Narang, "
        "Michael Matena, Yanqi Zhou, Wei Li, Peter J. Liu",
        "Raffel et al.",
        2020,
        "Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer",
        "JMLR 21(140)",
        "https://arxiv.org/abs/1910.10683",
    ),
    "wang2020": _r(
        "Yu-An Wang, Yun-Nung Chen",
        "Wang and Chen",
        2020,
        "What Do Position Embeddings Learn? An Empirical Study of Pre-Trained Language Model "
        "Positional Encoding",
        "EMNLP 2020",
        "https://arxiv.org/abs/2010.04903",
    ),
    "ke2021": _r(
        "Guolin Ke, Di He, Tie-Yan Liu",
        "Ke et al.",
        2021,
        "Rethinking Positional Encoding in Language Pre-training",
        "ICLR 2021",
        "https://arxiv.org/abs/2006.15595",
    ),
    "huang2018": _r(
        "Cheng-Zhi Anna Huang, Ashish Vaswani, Jakob Uszkoreit, Noam Shazeer, Ian Simon, "
        "Curtis Hawthorne, Andrew M. Dai, Matthew D. Hoffman, Monica Dinculescu, Douglas Eck",
        "Huang et al.",
        2018,
        "Music Transformer: Generating Music with Long-Term Structure",
        "arXiv:1809.04281 (ICLR 2019)",
        "https://arxiv.org/abs/1809.04281",
    ),
    "he2021": _r(
        "Pengcheng He, Xiaodong Liu, Jianfeng Gao, Weizhu Chen",
        "He et al.",
        2021,
        "DeBERTa: Decoding-enhanced BERT with Disentangled Attention",
        "ICLR 2021",
        "https://arxiv.org/abs/2006.03654",
    ),
    "zhang2022": _r(
        "Susan Zhang, Stephen Roller, Naman Goyal, Mikel Artetxe, Moya Chen, Shuohui Chen, "
        "Christopher Dewan, Mona Diab, Xian Li, Xi Victoria Lin, Todor Mihaylov, Myle Ott, "
        "Sam Shleifer, Kurt Shuster, Daniel Simig, Punit Singh Koura, Anjali Sridhar, "
        "Tianlu Wang, Luke Zettlemoyer",
        "Zhang et al.",
        2022,
        "OPT: Open Pre-trained Transformer Language Models",
        "arXiv:2205.01068",
        "https://arxiv.org/abs/2205.01068",
    ),
    "su2021": _r(
        "Jianlin Su, Yu Lu, Shengfeng Pan, Ahmed Murtadha, Bo Wen, Yunfeng Liu",
        "Su et al.",
        2021,
        "RoFormer: Enhanced Transformer with Rotary Position Embedding",
        "arXiv:2104.09864 (Neurocomputing 568, 2024)",
        "https://arxiv.org/abs/2104.09864",
    ),
    "wang2021gptj": _r(
        "Ben Wang, Aran Komatsuzaki",
        "Wang and Komatsuzaki",
        2021,
        "GPT-J-6B: A 6 Billion Parameter Autoregressive Language Model",
        "software release",
        "https://github.com/kingoflolz/mesh-transformer-jax",
    ),
    "black2022": _r(
        "Sid Black, Stella Biderman, Eric Hallahan, et al.",
        "Black et al.",
        2022,
        "GPT-NeoX-20B: An Open-Source Autoregressive Language Model",
        "BigScience Workshop, ACL 2022",
        "https://arxiv.org/abs/2204.06745",
    ),
    "press2022": _r(
        "Ofir Press, Noah A. Smith, Mike Lewis",
        "Press et al.",
        2022,
        "Train Short, Test Long: Attention with Linear Biases Enables Input Length Extrapolation",
        "ICLR 2022",
        "https://arxiv.org/abs/2108.12409",
    ),
    "haviv2022": _r(
        "Adi Haviv, Ori Ram, Ofir Press, Peter Izsak, Omer Levy",
        "Haviv et al.",
        2022,
        "Transformer Language Models without Positional Encodings Still Learn Positional "
        "Information",
        "Findings of EMNLP 2022",
        "https://arxiv.org/abs/2203.16634",
    ),
    "sun2023": _r(
        "Yutao Sun, Li Dong, Barun Patra, Shuming Ma, Shaohan Huang, Alon Benhaim, "
        "Vishrav Chaudhary, Xia Song, Furu Wei",
        "Sun et al.",
        2023,
        "A Length-Extrapolatable Transformer",
        "ACL 2023",
        "https://arxiv.org/abs/2212.10554",
    ),
    "kazemnejad2023": _r(
        "Amirhossein Kazemnejad, Inkit Padhi, Karthikeyan Natesan Ramamurthy, Payel Das, "
        "Siva Reddy",
        "Kazemnejad et al.",
        2023,
        "The Impact of Positional Encoding on Length Generalization in Transformers",
        "NeurIPS 2023",
        "https://arxiv.org/abs/2305.19466",
    ),
    "touvron2023": _r(
        "Hugo Touvron, Thibaut Lavril, Gautier Izacard, et al.",
        "Touvron et al.",
        2023,
        "LLaMA: Open and Efficient Foundation Language Models",
        "arXiv:2302.13971",
        "https://arxiv.org/abs/2302.13971",
    ),
    "chen2023": _r(
        "Shouyuan Chen, Sherman Wong, Liangjian Chen, Yuandong Tian",
        "Chen et al.",
        2023,
        "Extending Context Window of Large Language Models via Positional Interpolation",
        "arXiv:2306.15595",
        "https://arxiv.org/abs/2306.15595",
    ),
    "ntkaware2023": _r(
        "bloc97",
        "bloc97",
        2023,
        "NTK-Aware Scaled RoPE allows LLaMA models to have extended (8k+) context size "
        "without any fine-tuning and minimal perplexity degradation",
        "r/LocalLLaMA post",
        "https://www.reddit.com/r/LocalLLaMA/comments/14lz7j5/",
    ),
    "mohtashami2023": _r(
        "Amirkeivan Mohtashami, Martin Jaggi",
        "Mohtashami and Jaggi",
        2023,
        "Landmark Attention: Random-Access Infinite Context Length for Transformers",
        "NeurIPS 2023",
        "https://arxiv.org/abs/2305.16300",
    ),
    "peng2024": _r(
        "Bowen Peng, Jeffrey Quesnelle, Honglu Fan, Enrico Shippole",
        "Peng et al.",
        2024,
        "YaRN: Efficient Context Window Extension of Large Language Models",
        "ICLR 2024",
        "https://arxiv.org/abs/2309.00071",
    ),
    "roziere2023": _r(
        "Baptiste Rozière, Jonas Gehring, Fabian Gloeckle, Sten Sootla, et al.",
        "Rozière et al.",
        2023,
        "Code Llama: Open Foundation Models for Code",
        "arXiv:2308.12950",
        "https://arxiv.org/abs/2308.12950",
    ),
    "xiong2023": _r(
        "Wenhan Xiong, Jingyu Liu, Igor Molybog, Hejia Zhang, Prajjwal Bhargava, Rui Hou, "
        "Louis Martin, Rashi Rungta, et al.",
        "Xiong et al.",
        2023,
        "Effective Long-Context Scaling of Foundation Models",
        "arXiv:2309.16039 (NAACL 2024)",
        "https://arxiv.org/abs/2309.16039",
    ),
    "yang2024qwen2": _r(
        "An Yang, Baosong Yang, Binyuan Hui, Bo Zheng, Bowen Yu, Chang Zhou, et al. "
        "(Qwen Team, Alibaba Group)",
        "Yang et al.",
        2024,
        "Qwen2 Technical Report",
        "arXiv:2407.10671",
        "https://arxiv.org/abs/2407.10671",
        suffix="a",
    ),
    "yang2024qwen25": _r(
        "An Yang, Baosong Yang, Beichen Zhang, Binyuan Hui, Bo Zheng, Bowen Yu, et al. "
        "(Qwen Team, Alibaba Group)",
        "Yang et al.",
        2024,
        "Qwen2.5 Technical Report",
        "arXiv:2412.15115",
        "https://arxiv.org/abs/2412.15115",
        suffix="b",
    ),
    "kamradt2023": _r(
        "Greg Kamradt",
        "Kamradt",
        2023,
        "Needle In A Haystack: Pressure Testing LLMs",
        "GitHub repository",
        "https://github.com/gkamradt/LLMTest_NeedleInAHaystack",
    ),
    "hsieh2024": _r(
        "Cheng-Ping Hsieh, Simeng Sun, Samuel Kriman, Shantanu Acharya, Dima Rekesh, Fei Jia, "
        "Yang Zhang, Boris Ginsburg",
        "Hsieh et al.",
        2024,
        "RULER: What's the Real Context Size of Your Long-Context Language Models?",
        "COLM 2024",
        "https://arxiv.org/abs/2404.06654",
    ),
    "dao2024": _r(
        "Tri Dao",
        "Dao",
        2024,
        "FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning",
        "ICLR 2024",
        "https://arxiv.org/abs/2307.08691",
    ),
    "transformers2025yarnfactor": _r(
        "jklj077 and Hugging Face transformers maintainers",
        "jklj077",
        2025,
        "YaRN: factor is not effective with original_max_position_embeddings "
        "(issue #38224, fixed by pull request #40320, August 2025)",
        "GitHub, huggingface/transformers",
        "https://github.com/huggingface/transformers/issues/38224",
    ),
    "ding2024": _r(
        "Yiran Ding, Li Lyna Zhang, Chengruidong Zhang, Yuanyuan Xu, Ning Shang, Jiahang Xu, "
        "Fan Yang, Mao Yang",
        "Ding et al.",
        2024,
        "LongRoPE: Extending LLM Context Window Beyond 2 Million Tokens",
        "ICML 2024",
        "https://arxiv.org/abs/2402.13753",
    ),
    "dubey2024": _r(
        "Abhimanyu Dubey, Abhinav Jauhri, Abhinav Pandey, et al. (Llama Team, AI @ Meta)",
        "Llama Team",
        2024,
        "The Llama 3 Herd of Models",
        "arXiv:2407.21783",
        "https://arxiv.org/abs/2407.21783",
    ),
    "meta2024llamamodels": _r(
        "Meta Llama",
        "Meta Llama",
        2024,
        "llama-models: apply_scaling in models/llama3/reference_impl/model.py (commit 1bb5486)",
        "GitHub",
        "https://github.com/meta-llama/llama-models/blob/1bb54864e10c8d007edf2e651f35ec75b3c1cd78"
        "/models/llama3/reference_impl/model.py",
    ),
    "wang2024qwen2vl": _r(
        "Peng Wang, Shuai Bai, Sinan Tan, et al.",
        "Wang et al.",
        2024,
        "Qwen2-VL: Enhancing Vision-Language Model's Perception of the World at Any Resolution",
        "arXiv:2409.12191",
        "https://arxiv.org/abs/2409.12191",
    ),
    "agrawal2024": _r(
        "Pravesh Agrawal, Szymon Antoniak, Emma Bou Hanna, et al.",
        "Agrawal et al.",
        2024,
        "Pixtral 12B",
        "arXiv:2410.07073",
        "https://arxiv.org/abs/2410.07073",
    ),
    "barbero2025": _r(
        "Federico Barbero, Alex Vitvitskyi, Christos Perivolaropoulos, Razvan Pascanu, "
        "Petar Veličković",
        "Barbero et al.",
        2025,
        "Round and Round We Go! What Makes Rotary Positional Encodings Useful?",
        "ICLR 2025",
        "https://arxiv.org/abs/2410.06205",
    ),
    "deepseek2024v2": _r(
        "DeepSeek-AI",
        "DeepSeek-AI",
        2024,
        "DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language Model",
        "arXiv:2405.04434",
        "https://arxiv.org/abs/2405.04434",
    ),
    "nakanishi2025": _r(
        "Ken M. Nakanishi",
        "Nakanishi",
        2025,
        "Scalable-Softmax Is Superior for Attention",
        "arXiv:2501.19399",
        "https://arxiv.org/abs/2501.19399",
    ),
    "gemma2025": _r(
        "Gemma Team",
        "Gemma Team",
        2025,
        "Gemma 3 Technical Report",
        "arXiv:2503.19786",
        "https://arxiv.org/abs/2503.19786",
    ),
    "abdin2024": _r(
        "Marah Abdin, Jyoti Aneja, Hany Awadalla, et al.",
        "Abdin et al.",
        2024,
        "Phi-3 Technical Report: A Highly Capable Language Model Locally on Your Phone",
        "arXiv:2404.14219",
        "https://arxiv.org/abs/2404.14219",
    ),
    "bigscience2022": _r(
        "BigScience Workshop: Teven Le Scao, Angela Fan, Christopher Akiki, et al.",
        "BigScience Workshop",
        2022,
        "BLOOM: A 176B-Parameter Open-Access Multilingual Language Model",
        "arXiv:2211.05100",
        "https://arxiv.org/abs/2211.05100",
    ),
    "mosaicml2023": _r(
        "MosaicML NLP Team",
        "MosaicML",
        2023,
        "Introducing MPT-7B: A New Standard for Open-Source, Commercially Usable LLMs",
        "blog post",
        "https://www.databricks.com/blog/mpt-7b",
    ),
    "jiang2023": _r(
        "Albert Q. Jiang, Alexandre Sablayrolles, Arthur Mensch, et al.",
        "Jiang et al.",
        2023,
        "Mistral 7B",
        "arXiv:2310.06825",
        "https://arxiv.org/abs/2310.06825",
    ),
    "bai2023": _r(
        "Jinze Bai, Shuai Bai, Yunfei Chu, et al.",
        "Bai et al.",
        2023,
        "Qwen Technical Report",
        "arXiv:2309.16609",
        "https://arxiv.org/abs/2309.16609",
    ),
    "xiong2020": _r(
        "Ruibin Xiong, Yunchang Yang, Di He, Kai Zheng, Shuxin Zheng, Chen Xing, "
        "Huishuai Zhang, Yanyan Lan, Liwei Wang, Tie-Yan Liu",
        "Xiong et al.",
        2020,
        "On Layer Normalization in the Transformer Architecture",
        "ICML 2020",
        "https://arxiv.org/abs/2002.04745",
    ),
    "srivastava2014": _r(
        "Nitish Srivastava, Geoffrey Hinton, Alex Krizhevsky, Ilya Sutskever, Ruslan Salakhutdinov",
        "Srivastava et al.",
        2014,
        "Dropout: A Simple Way to Prevent Neural Networks from Overfitting",
        "JMLR 15(56)",
        "https://jmlr.org/papers/v15/srivastava14a.html",
    ),
    "kalamkar2019": _r(
        "Dhiraj Kalamkar, Dheevatsa Mudigere, Naveen Mellempudi, Dipankar Das, Kunal Banerjee, "
        "Sasikanth Avancha, Dharma Teja Vooturi, Nataraj Jammalamadaka, Jianyu Huang, Hector "
        "Yuen, Jiyan Yang, Jongsoo Park, Alexander Heinecke, Evangelos Georganas, Sudarshan "
        "Srinivasan, Abhisek Kundu, Misha Smelyanskiy, Bharat Kaul, Pradeep Dubey",
        "Kalamkar et al.",
        2019,
        "A Study of BFLOAT16 for Deep Learning Training",
        "arXiv:1905.12322",
        "https://arxiv.org/abs/1905.12322",
    ),
    "ieee2019": _r(
        "IEEE Computer Society",
        "IEEE 754",
        2019,
        "IEEE Standard for Floating-Point Arithmetic (IEEE Std 754-2019)",
        "IEEE",
        "https://doi.org/10.1109/IEEESTD.2019.8766229",
    ),
    "okabe2008": _r(
        "Masataka Okabe, Kei Ito",
        "Okabe and Ito",
        2008,
        "Color Universal Design (CUD): How to make figures and presentations that are "
        "friendly to colorblind people",
        "J*Fly",
        "https://jfly.uni-koeln.de/color/",
    ),
}
